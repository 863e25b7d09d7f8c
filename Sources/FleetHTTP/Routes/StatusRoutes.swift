import FleetStorage
import Hummingbird

/// `GET /api/v1/status`: what `fleetctl status --json` shows: the whole
/// fleet's, so not for a user limited to groups (403).
enum StatusRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/status", role: .viewer) { r in
                guard r.caller.scope.isAll else {
                    throw APIError(
                        .forbidden, "forbidden",
                        "\(r.caller.actor) is limited to groups: the status is the whole fleet's")
                }
                return Replies.record(d.backend.status())
            }
        ]
    }
}
