/// `[http]`: the API server (listen address, bounds, sessions), read into
/// the HTTP module's `HTTPSettings`.
public struct HTTPConfig: Sendable, Equatable {
    /// Where the API listens; nil ("" in the file) turns it off. Loopback by default.
    public var listen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 8080)
    public var settings = HTTPSettings()

    public init() {
        settings.host = listen?.host
        settings.port = listen?.port ?? 0
    }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        self.init()
        listen = try s.address("listen", default: listen)
        settings.host = listen?.host
        settings.port = listen?.port ?? 0
        settings.maxBodyBytes = try s.int(
            "max_body_bytes", default: settings.maxBodyBytes, range: 1024...1 << 30)
        settings.maxStreams = try s.int(
            "max_streams", default: settings.maxStreams, range: 1...100_000)
        settings.maxStreamsPerUser = try s.int(
            "max_streams_per_user", default: settings.maxStreamsPerUser, range: 1...100_000)
        settings.idleTimeoutS = try s.int(
            "idle_timeout_s", default: settings.idleTimeoutS, range: 1...3600)
        settings.requestTimeoutS = try s.int(
            "request_timeout_s", default: settings.requestTimeoutS, range: 1...3600)
        settings.maxConnections = try s.int(
            "max_connections", default: settings.maxConnections, range: 1...1_000_000)
        settings.maxConnectionsPerAddress = try s.int(
            "max_connections_per_address", default: settings.maxConnectionsPerAddress,
            range: 1...1_000_000)
        var proxies: [AddressRange] = []
        for text in try s.strings("trusted_proxies") {
            guard let r = AddressRange(text) else {
                throw s.error(
                    "trusted_proxies",
                    "\"\(text)\" is not an IP address or range (\"127.0.0.1\", \"10.0.0.0/8\", \"::1\")"
                )
            }
            proxies.append(r)
        }
        settings.trustedProxies = proxies
        settings.bodyTimeoutS = try s.int(
            "body_timeout_s", default: settings.bodyTimeoutS, range: 1...3600)
        settings.sessionIdleS = try s.int(
            "session_idle_s", default: settings.sessionIdleS, range: 60...30 * 86400)
        settings.sessionMaxS = try s.int(
            "session_max_s", default: settings.sessionMaxS, range: 60...365 * 86400)
        settings.shareMaxS = try s.int(
            "share_max_s", default: settings.shareMaxS, range: 60...90 * 86400)
        settings.reportConcurrency = try s.int(
            "report_concurrency", default: settings.reportConcurrency, range: 1...64)
        settings.reportMaxTrips = try s.int(
            "report_max_trips", default: settings.reportMaxTrips, range: 1...100_000_000)
        settings.mailRulesPerUser = try s.int(
            "mail_rules_per_user", default: settings.mailRulesPerUser, range: 0...1000)
        settings.mailRulesMax = try s.int(
            "mail_rules_max", default: settings.mailRulesMax, range: 0...100_000)
        settings.secureCookies = try s.bool("secure_cookies", default: settings.secureCookies)
        settings.webhooksAllowPrivate = try s.bool(
            "webhooks_allow_private", default: settings.webhooksAllowPrivate)
        settings.keepaliveS = try s.int("keepalive_s", default: settings.keepaliveS, range: 1...300)
        settings.streamBuffer = try s.int(
            "stream_buffer", default: settings.streamBuffer, range: 16...1_000_000)
        settings.streamPositionsPerS = try s.int(
            "stream_positions_per_s", default: settings.streamPositionsPerS,
            range: 100...10_000_000)
        settings.streamAlertsPerS = try s.int(
            "stream_alerts_per_s", default: settings.streamAlertsPerS, range: 100...10_000_000)
        settings.loginFailures = try s.int(
            "login_failures", default: settings.loginFailures, range: 1...1000)
        settings.loginFailuresPerUser = try s.int(
            "login_failures_per_user", default: settings.loginFailuresPerUser, range: 1...100_000)
        settings.loginFailuresPerAddress = try s.int(
            "login_failures_per_address", default: settings.loginFailuresPerAddress,
            range: 1...100_000)
        settings.loginConcurrency = try s.int(
            "login_concurrency", default: settings.loginConcurrency, range: 1...64)
        settings.loginWindowS = try s.int(
            "login_window_s", default: settings.loginWindowS, range: 1...86400)
        settings.console = try s.bool("console", default: settings.console)
        settings.tileURL = try s.string("tile_url", default: settings.tileURL)
        if !settings.tileURL.isEmpty {
            let t = settings.tileURL
            guard t.hasPrefix("https://") || t.hasPrefix("http://") || t.hasPrefix("/"),
                t.contains("{z}"), t.contains("{x}"), t.contains("{y}")
            else {
                throw s.error(
                    "tile_url",
                    "must be \"\" or an XYZ tile URL template (http(s)://host/{z}/{x}/{y}.png, or a path on this server), found \"\(t)\""
                )
            }
        }
        settings.tileAttribution = try s.string(
            "tile_attribution", default: settings.tileAttribution)
        settings.leafletDir = try s.string("leaflet_dir", default: settings.leafletDir)
    }
}
