import FleetStorage
import Hummingbird

/// `GET /api/v1/trips?device=&from=&to=&limit=&after=`: finished trips
/// overlapping the window, by start time then id, paged by the cursor
/// `after` (`START_MS.ID` of the last trip of the page before, as `next`
/// gives it); the last page ends with the trips under way (`"open": true`,
/// `id` null), by start time. Only the trips of vehicles the caller sees.
enum TripRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/trips", role: .driver,
                parameters: ["device", "from", "to", "limit", "after"]
            ) {
                r in
                let limit = try r.int("limit", default: 1000, range: 1...10_000)
                var f = TripFilter()
                f.scope = r.caller.scope
                if let device = r.query["device"] { f.device = try r.device(device) }
                f.fromMs = try r.time("from")
                f.toMs = try r.time("to")
                if let from = f.fromMs, let to = f.toMs, to <= from {
                    throw APIError.badParameter("to", "must be after from")
                }
                if let after = r.query["after"] {
                    let parts = after.split(separator: ".", omittingEmptySubsequences: false)
                    guard parts.count == 2, let start = Int64(parts[0]), let id = Int64(parts[1])
                    else {
                        throw APIError.badParameter(
                            "after", "expected START_MS.ID, as a page's next link gives it")
                    }
                    (f.afterStartMs, f.afterId) = (start, id)
                }
                let filter = f
                // One more than asked: whether a next page exists.
                var trips = try await d.read { try $0.trips(filter: filter, limit: limit + 1) }
                var next: String?
                if trips.count > limit {
                    trips.removeLast(trips.count - limit)
                    let last = trips[trips.count - 1]
                    var q = r.query
                    q["after"] = "\(last.startTime).\(last.id)"
                    q["limit"] = String(limit)
                    next = Replies.link("/api/v1/trips", q)
                } else {
                    // Off the event loops: each trip's start fences are listed now.
                    let backend = d.backend
                    var open = await Blocking.run { backend.tripsUnderWay(filter) }
                    if !filter.scope.isAll, !open.isEmpty {
                        let seen = try await d.visibleDevices(r) ?? []
                        open.removeAll { !seen.contains($0.device) }
                    }
                    if !open.isEmpty {
                        // Names of just these devices (each by its index), not the whole list.
                        let ids = Set(open.map(\.device))
                        let names = try await d.read { reader in
                            try ids.reduce(into: [String: String]()) { out, id in
                                out[id] = try reader.device(id)?.name
                            }
                        }
                        for i in open.indices { open[i].vehicle = names[open[i].device] }
                    }
                    trips += open
                }
                return Replies.page(trips.map(RecordCoding.line), next: next)
            }
        ]
    }
}
