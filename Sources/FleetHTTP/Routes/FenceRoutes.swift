import FleetGeo
import FleetStorage
import Hummingbird

/// `GET /api/v1/fences` (the loaded GeoJSON, properties and all) and
/// `PUT /api/v1/fences` (admin: a whole FeatureCollection, validated as the
/// file is; 422 lists every problem; when valid it replaces the file and
/// is loaded as SIGHUP does).
enum FenceRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/fences", role: .viewer) { _ in
                let doc = d.backend.fencesDocument()
                return Replies.body(
                    doc.isEmpty
                        ? #"{"type":"FeatureCollection","features":[]}"#
                        : String(decoding: doc, as: UTF8.self),
                    type: "application/geo+json")
            },
            Route(.put, "/api/v1/fences", role: .admin) { r in
                let body = try await r.jsonBody(
                    limit: d.settings.maxBodyBytes, timeoutS: d.settings.bodyTimeoutS)
                let problems = try await d.backend.replaceFences(body)
                guard problems.isEmpty else {
                    let list = problems.map(\.description)
                    throw APIError(
                        .unprocessableContent, "invalid fences",
                        "\(list.count) \(list.count == 1 ? "problem" : "problems"); the fences in use are unchanged",
                        problems: list)
                }
                let audit = AuditRecord(
                    timeMs: DeviceRoutes.now(), actor: r.caller.actor, action: "fences.put",
                    target: "fences",
                    detail: "\(body.count) bytes")
                try await d.backend.change { store throws(StoreError) in try store.record(audit) }
                return Replies.json(#"{"status":"loaded"}"#)
            },
        ]
    }
}
