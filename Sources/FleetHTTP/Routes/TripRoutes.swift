import FleetStorage
import Hummingbird

/// `GET /api/v1/trips?device=&from=&to=&limit=`: finished trips overlapping
/// the window, by start time.
enum TripRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/trips", role: .viewer, parameters: ["device", "from", "to", "limit"]
            ) {
                r in
                let limit = try r.int("limit", default: 1000, range: 1...10_000)
                var f = TripFilter()
                if let device = r.query["device"] { f.device = try r.device(device) }
                f.fromMs = try r.time("from")
                f.toMs = try r.time("to")
                let filter = f
                // One more than asked: whether a next page exists.
                let trips = try await d.read { try $0.trips(filter: filter, limit: limit + 1) }
                let page = Array(trips.prefix(limit))
                var next: String?
                if trips.count > limit, let last = page.last {
                    var q = r.query
                    q["from"] = String(last.startTime)
                    q["limit"] = String(limit)
                    next = Replies.link("/api/v1/trips", q)
                }
                return Replies.page(page.map(RecordCoding.line), next: next)
            }
        ]
    }
}
