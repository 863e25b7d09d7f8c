import FleetStorage
import Hummingbird

/// `GET /api/v1/status`: what `fleetctl status --json` shows.
enum StatusRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [Route(.get, "/api/v1/status", role: .viewer) { _ in Replies.record(d.backend.status()) }]
    }
}
