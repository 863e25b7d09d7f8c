import FleetStorage

/// How the HTTP server behaves (`[http]` in the config).
public struct HTTPSettings: Sendable, Equatable {
    /// Where the API listens; nil: off.
    public var host: String?
    public var port: Int = 8080
    /// Largest request body taken, bytes (413 beyond).
    public var maxBodyBytes = 16 * 1024 * 1024
    /// Most event streams open at once (503 with `Retry-After` beyond).
    public var maxStreams = 1000
    /// Most event streams one user (or token) holds at once: one viewer
    /// cannot take every stream (503 with `Retry-After` beyond).
    public var maxStreamsPerUser = 50
    /// A connection with no complete request for this long is closed (also
    /// bounds a slow client's request head), seconds.
    public var idleTimeoutS = 30
    /// A connection must deliver each whole request (head and body) within
    /// this of opening or of its previous response, however it trickles,
    /// seconds; beyond, it is closed.
    public var requestTimeoutS = 30
    /// HTTP connections open at once, the API and OsmAnd servers together;
    /// one more is closed at once.
    public var maxConnections = 4096
    /// HTTP connections open at once from one address (a trusted proxy's
    /// are counted only in `maxConnections`).
    public var maxConnectionsPerAddress = 256
    /// Proxies whose `X-Forwarded-For` names the client: the login limits,
    /// the audit, the OsmAnd door's budget of new devices and the
    /// per-address connection cap then see the client, not the proxy.
    /// Empty: the header is ignored.
    public var trustedProxies: [AddressRange] = []
    /// A request body must arrive within this, seconds (408 beyond).
    public var bodyTimeoutS = 30
    /// A session ends this long after its last use, seconds.
    public var sessionIdleS = 12 * 3600
    /// A login session ends this long after it opened, however it is used, s.
    public var sessionMaxS = 7 * 86_400
    /// The longest a shared link (`POST /api/v1/devices/{id}/shares`) may
    /// work, seconds.
    public var shareMaxS = 7 * 86_400
    /// Reports (`/api/v1/reports/…`) made at once (`http.report_concurrency`):
    /// the others wait, up to 4 each; beyond, 503.
    public var reportConcurrency = 2
    /// The most trips a report read through the API may cover
    /// (`http.report_max_trips`; a stops report counts 7 days past its
    /// period): each is held in memory while the report is made (about
    /// 0.8 KB with what is made of it). More: 422, asking for a shorter
    /// period or one vehicle.
    public var reportMaxTrips = 500_000
    /// The most mail rules a viewer or operator may make through the API
    /// (`http.mail_rules_per_user`).
    public var mailRulesPerUser = 20
    /// The most mail rules stored through the API in all
    /// (`http.mail_rules_max`): every rule is read on every planning pass.
    public var mailRulesMax = 1000
    /// The maintenance plans (`[[maintenance]]`), for the vehicle routes.
    public var maintenancePlans: [MaintenancePlan] = []
    /// The config's notification rules (`[[notifications]]`): listed by
    /// `/api/v1/notifications`, read-only there.
    public var mailRules: [MailRule] = []
    /// Whether `[smtp]` has a host: without one, rules cannot be made
    /// through the API (409), for no mail would be sent.
    public var mailEnabled = false
    /// Session cookies carry `Secure` (for a server behind TLS). Also set
    /// when the request says `X-Forwarded-Proto: https`.
    public var secureCookies = false
    /// Whether an API admin may make a webhook subscription with
    /// `allow_private` (its URL may then reach loopback, private and
    /// metadata addresses). Off: only the config file's `[[webhooks]]` may,
    /// so a stolen admin session cannot aim fleetd at internal services.
    public var webhooksAllowPrivate = false
    /// A comment line on each event stream this often, seconds.
    public var keepaliveS = 15
    /// Events a stream may hold unsent before its client counts as too slow
    /// and is disconnected.
    public var streamBuffer = 10_000
    /// The most positions the live streams send a second, over the whole
    /// fleet (one batch serves every console): while more devices are due,
    /// those waiting longest go first, so each is refreshed less often
    /// than once a second instead of the streams' traffic growing with the
    /// fleet (`LivePositions`). 10 000: what a browser draws in a second
    /// (`make bench`'s console step), about 0.5 MB/s to each console.
    public var streamPositionsPerS = 10_000
    /// The most alerts a second the live streams send as `alerts_compact`
    /// rows (the console's form), over the whole fleet: past it a round
    /// keeps every `device_alarm` and the newest others and counts the
    /// rest as skipped (`CompactAlerts`). Streams of `alert` events get
    /// every alert.
    public var streamAlertsPerS = 2_000
    /// Failed logins within `loginWindowS` before further attempts get
    /// 429: per user name from one address, per user name from anywhere
    /// (softer: one address cannot lock a user out for everyone), and per
    /// address across user names (`LoginLimiter`).
    public var loginFailures = 5
    public var loginFailuresPerUser = 50
    public var loginFailuresPerAddress = 20
    public var loginWindowS = 300
    /// Password checks (bcrypt) at a time; up to 32 times as many logins
    /// wait for their turn, more get 503 (`WorkGate`). One: a login flood
    /// then holds one core, never all (`fleetbench attack`: with 2 on two
    /// cores, the API's p99 went from 4 ms to 847 ms; with 1, to 22 ms).
    public var loginConcurrency = 1
    /// Serve the console (the web page at `/`).
    public var console = true
    /// An XYZ tile URL template (`{z}`, `{x}`, `{y}`, optionally `{s}`) the
    /// console's map draws under the vectors; "" (default): no tiles, a
    /// plain background, nothing fetched from another host.
    public var tileURL = ""
    /// The tiles' attribution (HTML text shown in the map's corner).
    public var tileAttribution = ""
    /// Where Leaflet's files are (Debian's `libjs-leaflet`).
    public var leafletDir = "/usr/share/javascript/leaflet"

    public init() {}
}
