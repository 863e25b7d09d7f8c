import Hummingbird

/// `GET /healthz` (the process answers) and `GET /readyz` (503 while the
/// fences are not loaded or storage is failing), both without credentials.
enum HealthRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/healthz", role: nil) { _ in Replies.json(#"{"status":"ok"}"#) },
            Route(.get, "/readyz", role: nil) { _ in
                if let why = d.backend.notReady() {
                    var e = APIError(.serviceUnavailable, "not ready", why)
                    e.headers[.retryAfter] = "5"
                    return e.response
                }
                return Replies.json(#"{"status":"ready"}"#)
            },
        ]
    }
}
