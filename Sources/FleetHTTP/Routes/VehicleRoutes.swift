import FleetStorage
import Hummingbird

/// `GET /api/v1/positions/latest?after=&limit=`: every device that has an
/// accepted position, with its newest one, its name and whether it is
/// silent (`VehicleRecord`), by id, paged by id: what the live map starts
/// from before the event stream moves it. Only the vehicles the caller sees.
enum VehicleRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/positions/latest", role: .driver, parameters: ["limit", "after"]) {
                r in
                let limit = try r.int("limit", default: 10_000, range: 1...100_000)
                let after = try r.query["after"].map { try r.device($0, name: "after") } ?? ""
                let scope = r.caller.scope
                let page = try await d.read {
                    try $0.vehicles(after: after, limit: limit, scope: scope)
                }
                let next =
                    page.count == limit
                    ? Replies.link(
                        "/api/v1/positions/latest",
                        ["limit": String(limit), "after": page.last!.device])
                    : nil
                return Replies.page(page.map(RecordCoding.line), next: next)
            }
        ]
    }
}
