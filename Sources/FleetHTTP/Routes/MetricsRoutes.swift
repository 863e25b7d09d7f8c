import FleetStorage
import HTTPTypes
import Hummingbird

/// `GET /metrics`: the daemon's metrics in the Prometheus text format
/// (version 0.0.4, https://prometheus.io/docs/instrumenting/exposition_formats/).
///
/// Open to clients on loopback (a Prometheus on the same host scrapes it
/// without a secret); from any other address it needs credentials like
/// the API (a bearer token of any role: `fleetctl tokens add prometheus
/// --role viewer`, and `authorization: {credentials_file: …}` in the
/// scrape config). A reverse proxy on the same host makes every client
/// look local: such a proxy must not pass `/metrics` on (`docs/operations.md`).
enum MetricsRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/metrics", role: nil) { r in
                if !isLoopback(r.context.peer) {
                    let who = try await d.auth.identify(
                        bearer: APIRouter.bearer(r.request), cookie: APIRouter.cookie(r.request))
                    guard who != nil else {
                        throw APIError.unauthorized(
                            "/metrics is open on loopback only; from \(r.context.peer) send Authorization: Bearer <token>"
                        )
                    }
                }
                guard let text = await d.backend.metricsText() else {
                    throw APIError.notFound("this server keeps no metrics")
                }
                return Replies.body(text, type: "text/plain; version=0.0.4; charset=utf-8")
            }
        ]
    }

    /// Whether `peer` (an IP address as text) is a loopback address:
    /// 127.0.0.0/8, ::1, or 127.x mapped into IPv6.
    static func isLoopback(_ peer: String) -> Bool {
        peer == "::1" || peer.hasPrefix("127.") || peer.hasPrefix("::ffff:127.")
    }
}
