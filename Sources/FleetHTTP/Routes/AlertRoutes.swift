import FleetStorage
import Hummingbird

/// `GET /api/v1/alerts` (oldest first after `since`, an alert id or a
/// time, and before `before`, an alert id; with `order=newest`, newest
/// first, paged by `before`: what a console lists after a storm) and
/// `POST /api/v1/alerts/{id}/ack` (operator): only the alerts of vehicles
/// the caller sees.
enum AlertRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/alerts", role: .viewer,
                parameters: ["since", "device", "type", "fence", "limit", "order", "before"]
            ) { r in
                let limit = try r.int("limit", default: 1000, range: 1...10_000)
                var filter = try filter(r)
                filter.scope = r.caller.scope
                var after: Int64 = 0
                if let since = r.query["since"] {
                    if let id = Int64(since), id >= 0, id < 1_000_000_000_000 {
                        after = id
                    } else {
                        filter.sinceMs = try r.time("since")
                    }
                }
                let newest: Bool
                switch r.query["order"] {
                case nil, "oldest"?: newest = false
                case "newest"?: newest = true
                case let v?:
                    throw APIError.badParameter(
                        "order", "\"\(v.prefix(20))\" is not oldest or newest")
                }
                var before = Int64.max
                if let text = r.query["before"] {
                    guard let id = Int64(text), id >= 0 else {
                        throw APIError.badParameter(
                            "before", "\"\(text.prefix(20))\" is not an alert id")
                    }
                    before = id
                }
                let alerts = try await d.read { [filter, after, before] in
                    try $0.alerts(
                        afterId: after, beforeId: before, newestFirst: newest, limit: limit,
                        filter: filter)
                }
                var q = r.query
                // The next page's cursor: `before` newest first, `since` oldest first.
                q[newest ? "before" : "since"] = alerts.last.map { String($0.id) }
                q["limit"] = String(limit)
                return Replies.page(
                    alerts.map(\.jsonLine),
                    next: alerts.count == limit ? Replies.link("/api/v1/alerts", q) : nil)
            },
            Route(.post, "/api/v1/alerts/{id}/ack", role: .operator) { r in
                guard let id = Int64(r.path["id"]!), id > 0 else {
                    throw APIError.badParameter(
                        "id", "\"\(r.path["id"]!.prefix(40))\" is not an alert id")
                }
                if !r.caller.scope.isAll {
                    let alert = try await d.read { try $0.alert(id: id) }
                    guard let alert, try await d.sees(r, alert.device) else {
                        throw APIError.notFound("no alert \(id)")
                    }
                }
                let who = r.caller.actor
                let at = DeviceRoutes.now()
                let audit = AuditRecord(
                    timeMs: at, actor: who, action: "alert.ack", target: String(id))
                let alert = try await d.backend.change { store throws(StoreError) in
                    try store.acknowledge(alert: id, by: who, atMs: at, audit: audit)
                }
                guard let alert else { throw APIError.notFound("no alert \(id)") }
                return Replies.record(alert)
            },
        ]
    }

    /// `device`, `type`, `fence` as an `AlertFilter`.
    static func filter(_ r: APIRequest) throws(APIError) -> AlertFilter {
        var f = AlertFilter()
        if let device = r.query["device"] { f.device = try r.device(device) }
        f.type = try r.alertType()
        f.fence = r.query["fence"]
        return f
    }
}
