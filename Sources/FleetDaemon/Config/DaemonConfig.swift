import FleetProtocols
import FleetStorage
import FleetTracking
import Foundation

/// Everything fleetd can be told, with the embedded defaults.
///
/// Read from one TOML file (`fleetd --config FILE`); with no file every
/// default applies. `config/fleetd.toml` shows every key with its default.
/// An unknown key, a wrong type or a bad value is an error naming the key.
public struct DaemonConfig: Sendable, Equatable {
    // [storage]
    /// Path of the SQLite file (its folder is created when missing).
    public var database = "var/fleetd.db"
    /// SQLite `synchronous` for the writer: OFF, NORMAL or FULL (EXTRA).
    public var synchronous = SynchronousMode.normal
    /// Most fixes in one transaction (group commit).
    public var batchMaxFixes = 4096
    /// Longest a fix waits for its batch to fill before commit, ms.
    public var batchMaxDelayMs = 2

    /// Positions whose fix time is older than this many days are deleted in
    /// the background, in small batches; 0 keeps them forever.
    public var retainDays = 90.0
    /// Device state is checkpointed: a device's tracking state is written at
    /// most this many seconds after it changed (at once when it goes silent,
    /// and all of it at a clean stop), not with every fix. After a crash the
    /// fixes stored since a device's checkpoint are replayed through the
    /// tracker at start-up, so nothing is lost either way. 0 writes the state
    /// with every fix's transaction.
    public var stateCheckpointS = 10

    // [geofences]
    /// GeoJSON file of fences; "" for none.
    public var geofencesFile = "config/geofences.geojson"

    // [listen]
    /// Where each protocol listens, by its `[listen]` key (`WireFormats`:
    /// `json`, `teltonika`, `nmea`); a protocol absent here is off.
    public var listen: [String: ListenAddress] = WireFormats.defaultListen

    // [nmea.devices]
    /// NMEA senders' device ids by "ip" or "ip:port".
    public var nmeaDevices: [String: String] = [:]
    /// SO_RCVBUF asked of the kernel for each UDP socket, bytes.
    public var receiveBufferBytes = 8 * 1024 * 1024

    // [screen]
    public var screen = ScreenPolicy()

    // [engine]
    /// Most fixes waiting for the writer; beyond it datagrams are shed (reason `overload`).
    public var queueMaxFixes = 200_000
    /// Most time the oldest waiting datagram may have waited, ms; while it is
    /// older, arriving datagrams are shed (reason `overload`). Keeps the
    /// acknowledgement delay under devices' resend timeouts when the writer
    /// falls behind, so the daemon never spends its time on datagrams their
    /// senders have already given up on.
    public var queueMaxDelayMs = 1000

    // [alerts]
    /// JSON Lines file every committed alert is appended to; "" = none.
    public var alertLogFile = ""

    // [tracking]
    /// Default exit hysteresis and dwell for fences that do not set theirs.
    public var tracking = TrackerSettings()
    /// `device_silent` after this many seconds without a fix (wall clock); 0 = off.
    public var silentAfterS = 3600.0

    // [devices]
    /// Take fixes from devices not in the registry (`fleetctl devices add`).
    public var acceptUnknown = true

    // [log]
    /// trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"
    /// Most rejected-datagram log lines per second (the rest are counted).
    public var rejectLogPerSecond = 5

    public init() {}

    /// The file fleetd names when the default fences file is used.
    public static let defaultGeofencesFile = "config/geofences.geojson"

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

    /// Reads config text; `file` labels errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        let root = try TOMLParser.parse(text, file: file)
        let known = [
            "storage", "geofences", "listen", "screen", "engine", "log", "nmea", "devices",
            "tracking", "alerts", "overspeed", "trip",
        ]
        for key in root.keys where !known.contains(key) {
            throw ConfigError(
                file: file, line: root.line(of: key), key: key, message: "unknown key")
        }
        var c = DaemonConfig()

        var s = try ConfigSection(root, "storage", file: file)
        c.database = try s.string("database", default: c.database)
        if c.database.isEmpty { throw s.error("database", "must not be empty") }
        let sync = try s.string("synchronous", default: c.synchronous.rawValue)
        guard let mode = SynchronousMode(rawValue: sync.uppercased()) else {
            throw s.error("synchronous", "must be OFF, NORMAL, FULL or EXTRA, found \"\(sync)\"")
        }
        c.synchronous = mode
        c.batchMaxFixes = try s.int(
            "batch_max_fixes", default: c.batchMaxFixes, range: 1...1_000_000)
        c.batchMaxDelayMs = try s.int(
            "batch_max_delay_ms", default: c.batchMaxDelayMs, range: 0...50)
        c.retainDays = try s.double("retain_days", default: c.retainDays, range: 0...36_500)
        c.stateCheckpointS = try s.int(
            "state_checkpoint_s", default: c.stateCheckpointS, range: 0...3600)
        try s.finish()

        var g = try ConfigSection(root, "geofences", file: file)
        c.geofencesFile = try g.string("file", default: c.geofencesFile)
        try g.finish()

        var l = try ConfigSection(root, "listen", file: file)
        for format in WireFormats.all {
            c.listen[format.key] = try l.address(format.key, default: c.listen[format.key])
        }
        c.receiveBufferBytes = try l.int(
            "receive_buffer_bytes", default: c.receiveBufferBytes, range: 4096...1 << 30)
        try l.finish()

        var sc = try ConfigSection(root, "screen", file: file)
        let future = try sc.int(
            "future_margin_s", default: Int(c.screen.futureMarginMs / 1000), range: 0...86_400 * 366
        )
        c.screen.futureMarginMs = Int64(future) * 1000
        c.screen.maxSpeedKmh = try sc.double(
            "max_speed_kmh", default: c.screen.maxSpeedKmh, range: 1...100_000)
        try sc.finish()

        var e = try ConfigSection(root, "engine", file: file)
        c.queueMaxFixes = try e.int(
            "queue_max_fixes", default: c.queueMaxFixes, range: 1...100_000_000)
        c.queueMaxDelayMs = try e.int(
            "queue_max_delay_ms", default: c.queueMaxDelayMs, range: 10...600_000)
        try e.finish()

        var nm = try ConfigSection(root, "nmea", file: file)
        switch nm.value("devices") {
        case nil: break
        case .table(let t)?:
            for key in t.keys {
                let line = t.line(of: key)
                guard case .string(let id)? = t[key] else {
                    throw ConfigError(
                        file: file, line: line, key: "nmea.devices.\(key)",
                        message: "must be a device id string")
                }
                guard JSONFixDecoder.isValidDevice(id) else {
                    throw ConfigError(
                        file: file, line: line, key: "nmea.devices.\(key)",
                        message: "\"\(id)\" is not a device id (1–64 characters of [A-Za-z0-9._:-])"
                    )
                }
                guard key.contains(".") || key.contains(":") else {
                    throw ConfigError(
                        file: file, line: line, key: "nmea.devices.\(key)",
                        message: "the key must be an IP address or IP:port")
                }
                c.nmeaDevices[key] = id
            }
        case let other?:
            throw nm.error(
                "devices", "must be a table of \"address\" = \"device id\", found \(other.typeName)"
            )
        }
        try nm.finish()

        var al = try ConfigSection(root, "alerts", file: file)
        c.alertLogFile = try al.string("log_file", default: c.alertLogFile)
        try al.finish()

        var tr = try ConfigSection(root, "tracking", file: file)
        c.tracking.marginM = try tr.double(
            "margin_m", default: c.tracking.marginM, range: 0...100_000)
        c.tracking.dwellS = try tr.double("dwell_s", default: c.tracking.dwellS, range: 0...604_800)
        c.tracking.exitConfirmFixes = try tr.int(
            "exit_confirm_fixes", default: c.tracking.exitConfirmFixes, range: 1...100)
        c.tracking.jumpSpeedKmh = try tr.double(
            "jump_speed_kmh", default: c.tracking.jumpSpeedKmh, range: 0...100_000)
        c.tracking.jumpConfirmFixes = try tr.int(
            "jump_confirm_fixes", default: c.tracking.jumpConfirmFixes, range: 1...100)
        c.tracking.jumpWindowFixes = try tr.int(
            "jump_window_fixes", default: c.tracking.jumpWindowFixes, range: 1...100)
        if c.tracking.jumpWindowFixes < c.tracking.jumpConfirmFixes {
            throw tr.error(
                "jump_window_fixes",
                "must be at least jump_confirm_fixes (\(c.tracking.jumpConfirmFixes)), found \(c.tracking.jumpWindowFixes)"
            )
        }
        c.silentAfterS = try tr.double(
            "silent_after_s", default: c.silentAfterS, range: 0...31_536_000)
        try tr.finish()

        var os = try ConfigSection(root, "overspeed", file: file)
        c.tracking.speedLimitKmh = try os.double(
            "limit_kmh", default: c.tracking.speedLimitKmh, range: 0...1000)
        c.tracking.overspeedMinS = try os.double(
            "min_duration_s", default: c.tracking.overspeedMinS, range: 0...86_400)
        try os.finish()

        var tp = try ConfigSection(root, "trip", file: file)
        c.tracking.tripStartDistanceM = try tp.double(
            "start_distance_m", default: c.tracking.tripStartDistanceM, range: 1...1_000_000)
        c.tracking.tripStopDurationS = try tp.double(
            "stop_duration_s", default: c.tracking.tripStopDurationS, range: 1...604_800)
        c.tracking.tripGapS = try tp.double(
            "gap_s", default: c.tracking.tripGapS, range: 1...31_536_000)
        c.tracking.ignitionEndsTrip = try tp.bool(
            "ignition_ends_trip", default: c.tracking.ignitionEndsTrip)
        try tp.finish()

        var dv = try ConfigSection(root, "devices", file: file)
        c.acceptUnknown = try dv.bool("accept_unknown", default: c.acceptUnknown)
        try dv.finish()

        var lg = try ConfigSection(root, "log", file: file)
        c.logLevel = try lg.string("level", default: c.logLevel)
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        guard levels.contains(c.logLevel) else {
            throw lg.error(
                "level", "must be one of \(levels.joined(separator: ", ")), found \"\(c.logLevel)\""
            )
        }
        c.rejectLogPerSecond = try lg.int(
            "reject_log_per_second", default: c.rejectLogPerSecond, range: 0...100_000)
        try lg.finish()
        return c
    }
}
