/// `[alerts]`: where committed alerts are also written.
public struct AlertsConfig: Sendable, Equatable {
    /// JSON Lines file every committed alert is appended to; "" = none.
    public var logFile = ""
    /// Write every committed alert to the systemd journal as an entry of
    /// its own (`FLEETD_ALERT_*` fields) when fleetd's standard error is
    /// the journal.
    public var journal = true
    /// The most alerts waiting to be written to the journal; beyond, they
    /// are left out of it (counted; the database has them all).
    public var journalBacklog = 10_000
    /// The most alerts a second written to the journal an entry each; past
    /// it (a storm), every `device_alarm` still is and the rest are summed
    /// up in one entry a second (counts by type, first and last id).
    public var journalPerS = 1_000
    /// How often the maintenance plans (`[[maintenance]]`) are checked, seconds.
    public var maintenanceCheckS = 60.0

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        logFile = try s.string("log_file", default: logFile)
        journal = try s.bool("journal", default: journal)
        journalBacklog = try s.int(
            "journal_backlog", default: journalBacklog, range: 100...1_000_000)
        journalPerS = try s.int("journal_per_s", default: journalPerS, range: 1...1_000_000)
        maintenanceCheckS = try s.double(
            "maintenance_check_s", default: maintenanceCheckS, range: 1...86_400)
    }
}
