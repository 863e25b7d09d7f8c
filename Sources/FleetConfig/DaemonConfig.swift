import FleetStorage
import FleetTracking
import Foundation

/// Everything fleetd can be told, with the embedded defaults: one struct
/// per section of the file, each decoded by its own type (`StorageConfig`,
/// `EngineConfig`, `ListenConfig`, …).
///
/// Read from one TOML file (`fleetd --config FILE`); with no file every
/// default applies. `config/fleetd.toml` shows every key with its default.
/// An unknown key, a wrong type or a bad value is an error naming the file,
/// the line and the key.
public struct DaemonConfig: Sendable, Equatable {
    public var storage = StorageConfig()
    public var postgresql = PostgresConfig()
    public var cluster = ClusterConfig()
    public var geofences = GeofencesConfig()
    public var listen = ListenConfig()
    public var tcp = TCPConfig()
    public var udp = UDPConfig()
    public var nmea = NMEAConfig()
    public var screen = ScreenPolicy()
    public var engine = EngineConfig()
    public var alerts = AlertsConfig()
    public var tracking = TrackingConfig()
    public var devices = DevicesConfig()
    public var log = LogConfig()
    public var http = HTTPConfig()
    /// `[[webhooks]]`: the subscriptions the file defines, in file order.
    public var webhooks: [WebhookEntry] = []
    /// `[smtp]`: the mail server.
    public var smtp = SMTPConfig()
    /// `[[notifications]]`: who is mailed about which alerts, in file order.
    public var notifications: [MailRule] = []
    /// `[[reports]]`: reports mailed on a schedule, in file order.
    public var reports: [ReportRule] = []
    /// `[[maintenance]]`: service plans, in file order.
    public var maintenance: [MaintenancePlan] = []

    public init() {}

    /// Reads a config file. Throws `ConfigError` (file, line, key, what is wrong).
    public static func load(path: String) throws(ConfigError) -> DaemonConfig {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError(
                file: path, line: nil, key: nil,
                message: "cannot read the file: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: path, line: nil, key: nil, message: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// The sections a file may have.
    static let sections = [
        "storage", "geofences", "listen", "tcp", "udp", "screen", "engine", "log", "nmea",
        "devices",
        "tracking", "alerts", "overspeed", "trip", "http", "webhooks", "postgresql", "cluster",
        "smtp", "notifications", "reports", "maintenance",
    ]

    /// `[[webhooks]]`: each table a `WebhookEntry`; names unique.
    static func webhooks(_ root: TOMLTable, file: String) throws(ConfigError) -> [WebhookEntry] {
        var entries: [WebhookEntry] = []
        for t in try root.tables("webhooks", file: file) {
            var section = ConfigSection(element: t, "webhooks", file: file)
            let entry = try WebhookEntry(&section)
            try section.finish()
            if entries.contains(where: { $0.settings.name == entry.settings.name }) {
                throw ConfigError(
                    file: file, line: t.line(of: "name"), key: "webhooks.name",
                    message: "webhook \(entry.settings.name) is defined twice")
            }
            entries.append(entry)
        }
        return entries
    }

    /// `[[key]]`: each table decoded by `decode`, its keys all known, the
    /// names unique (a second one is an error naming `what`).
    static func named<T>(
        _ root: TOMLTable, _ key: String, file: String, what: String, name: (T) -> String,
        _ decode: (inout ConfigSection) throws(ConfigError) -> T
    ) throws(ConfigError) -> [T] {
        var out: [T] = []
        for t in try root.tables(key, file: file) {
            var section = ConfigSection(element: t, key, file: file)
            let entry = try decode(&section)
            try section.finish()
            if out.contains(where: { name($0) == name(entry) }) {
                throw ConfigError(
                    file: file, line: t.line(of: "name"), key: "\(key).name",
                    message: "\(what) \(name(entry)) is defined twice")
            }
            out.append(entry)
        }
        return out
    }

    /// Reads config text; `file` labels errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        let root = try TOMLParser.parse(text, file: file)
        for key in root.keys where !sections.contains(key) {
            throw ConfigError(
                file: file, line: root.line(of: key), key: key, message: "unknown key")
        }
        /// Decodes one section and checks it has no unknown key.
        func read<T>(_ name: String, _ decode: (inout ConfigSection) throws(ConfigError) -> T)
            throws(ConfigError) -> T
        {
            var section = try ConfigSection(root, name, file: file)
            let value = try decode(&section)
            try section.finish()
            return value
        }
        var c = DaemonConfig()
        c.storage = try read("storage", StorageConfig.init)
        c.postgresql = try read("postgresql", PostgresConfig.init)
        c.cluster = try read("cluster", ClusterConfig.init)
        if c.cluster.enabled, c.storage.backend != .postgresql {
            throw ConfigError(
                file: file, line: nil, key: "cluster.node",
                message: "nodes share a PostgreSQL database: set [storage] backend = \"postgresql\""
            )
        }
        c.geofences = try read("geofences", GeofencesConfig.init)
        c.listen = try read("listen", ListenConfig.init)
        c.tcp = try read("tcp", TCPConfig.init)
        c.udp = try read("udp", UDPConfig.init)
        c.screen = try read("screen", ScreenPolicy.init)
        c.engine = try read("engine", EngineConfig.init)
        c.nmea = try read("nmea", NMEAConfig.init)
        c.alerts = try read("alerts", AlertsConfig.init)
        // [tracking], [overspeed] and [trip] all set the tracker's settings.
        var tracking = try ConfigSection(root, "tracking", file: file)
        var overspeed = try ConfigSection(root, "overspeed", file: file)
        var trip = try ConfigSection(root, "trip", file: file)
        c.tracking = try TrackingConfig(tracking: &tracking, overspeed: &overspeed, trip: &trip)
        for section in [tracking, overspeed, trip] { try section.finish() }
        c.devices = try read("devices", DevicesConfig.init)
        c.log = try read("log", LogConfig.init)
        c.http = try read("http", HTTPConfig.init)
        c.webhooks = try webhooks(root, file: file)
        c.smtp = try read("smtp", SMTPConfig.init)
        c.notifications = try named(
            root, "notifications", file: file, what: "notification rule", name: \.name,
            NotificationEntry.rule)
        c.reports = try named(
            root, "reports", file: file, what: "report", name: \.name, ReportEntry.rule)
        c.maintenance = try named(
            root, "maintenance", file: file, what: "maintenance plan", name: \.name,
            MaintenanceEntry.plan)
        c.http.settings.maintenancePlans = c.maintenance
        c.http.settings.mailRules = c.notifications
        c.http.settings.mailEnabled = c.smtp.enabled
        if !c.maintenance.isEmpty, c.cluster.enabled {
            throw ConfigError(
                file: file, line: nil, key: "maintenance",
                message: "[[maintenance]] plans are checked by a single node: not with [cluster]")
        }
        if !c.notifications.isEmpty || !c.reports.isEmpty, !c.smtp.enabled {
            throw ConfigError(
                file: file, line: nil, key: "smtp.host",
                message:
                    "[[\(c.notifications.isEmpty ? "reports" : "notifications")]] need a mail server: set [smtp] host and from"
            )
        }
        return c
    }
}
