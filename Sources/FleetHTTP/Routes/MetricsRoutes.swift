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
///
/// Open on loopback only to a request whose `Host` is an IP address or
/// `localhost`: a web page that rebinds its own name to 127.0.0.1 (DNS
/// rebinding) sends its name as `Host`, and is asked for credentials.
enum MetricsRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/metrics", role: nil) { r in
                if !isLoopback(r.context.peer) || !isAddressHost(r.request.head.authority) {
                    let who = try await d.auth.identify(
                        bearer: APIRouter.bearer(r.request), cookie: APIRouter.cookie(r.request))
                    guard who != nil else {
                        throw APIError.unauthorized(
                            "/metrics is open on loopback only, to Host an IP address or localhost; from \(r.context.peer) send Authorization: Bearer <token>"
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

    /// Whether a request's `Host` (with or without a port) names no host but
    /// an address: an IPv4 or bracketed IPv6 literal, or `localhost`.
    static func isAddressHost(_ authority: String?) -> Bool {
        guard var host = authority?.lowercased(), !host.isEmpty else { return true }  // HTTP/1.0
        if host.hasPrefix("[") { return host.contains("]") }  // [::1]:9090
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host == "localhost" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in UInt8(p) != nil }
    }

    /// Whether `peer` (an IP address as text) is a loopback address:
    /// 127.0.0.0/8, ::1, or 127.x mapped into IPv6.
    static func isLoopback(_ peer: String) -> Bool {
        peer == "::1" || peer.hasPrefix("127.") || peer.hasPrefix("::ffff:127.")
    }
}
