import FleetGeo
import FleetJSON
import FleetStorage
import Hummingbird

/// `GET /api/v1/fences` (the loaded GeoJSON, properties and all) and
/// `PUT /api/v1/fences` (admin: a whole FeatureCollection, validated as the
/// file is; 422 lists every problem; when valid it replaces the file and
/// is loaded as SIGHUP does). A user limited to groups gets the fences for
/// every vehicle and those limited to one of its groups (`properties.groups`).
enum FenceRoutes {
    /// The fences document without the features limited to groups other
    /// than `groups` (parsed and written again: only for users limited to
    /// groups).
    static func visible(_ doc: [UInt8], to groups: Set<String>) throws -> String {
        let parsed = try JSONReader.parseDocument(doc)
        guard case .object(var members) = parsed,
            let i = members.firstIndex(where: { $0.key == "features" }),
            case .array(let features) = members[i].value
        else { return String(decoding: doc, as: UTF8.self) }
        let kept = features.filter { feature in
            guard case .array(let limited)? = feature["properties"]?["groups"] else { return true }
            return limited.contains {
                if case .string(let g) = $0 { groups.contains(g) } else { false }
            }
        }
        members[i].value = .array(kept)
        return JSONValue.object(members).jsonText
    }

    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/fences", role: .viewer) { r in
                let doc = d.backend.fencesDocument()
                guard !doc.isEmpty else {
                    return Replies.body(
                        #"{"type":"FeatureCollection","features":[]}"#,
                        type: "application/geo+json")
                }
                guard case .groups(let groups) = r.caller.scope else {
                    return Replies.body(
                        String(decoding: doc, as: UTF8.self), type: "application/geo+json")
                }
                let shown = try await Blocking.run { () throws -> String in
                    try visible(doc, to: Set(groups))
                }
                return Replies.body(shown, type: "application/geo+json")
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
