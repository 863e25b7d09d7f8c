import ArgumentParser
import FleetDaemon
import Foundation

/// `fleetctl`: the fleet managers' tool. Reads the database fleetd writes.
@main
struct FleetctlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetctl",
        abstract:
            "Read fleetd's alerts, trips, positions and devices; check and query fences files; manage users, tokens and the registry.",
        subcommands: [
            AlertsCommand.self, PositionsCommand.self, SummaryCommand.self, FencesCommand.self,
            DevicesCommand.self, StatusCommand.self, TripsCommand.self, UsersCommand.self,
            TokensCommand.self, AuditCommand.self, ReportCommand.self, MapCommand.self,
            WebhooksCommand.self, BackupCommand.self,
        ])
}

/// Options every database-reading subcommand takes: which database.
///
/// In order: `--db`; else `--config`'s `[storage] database`; else
/// `var/fleetd.db` when it exists (a checkout's `make run`); else the
/// installed config's (`/etc/fleetd/fleetd.toml`) when that exists; else
/// `var/fleetd.db`.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "Path of fleetd's SQLite database.")
    var dbPath: String?

    @Option(
        name: .customLong("config"),
        help: "fleetd's config file: its [storage] database is the one read.")
    var configPath: String?

    /// The installed config, used when nothing else names a database.
    static let installedConfig = "/etc/fleetd/fleetd.toml"

    func validate() throws {
        _ = try resolved()
    }

    /// The database's path, by the rule above.
    var db: String { (try? resolved()) ?? "var/fleetd.db" }

    /// The config file the database comes from (`--config`, or the
    /// installed one when it is used), nil when `--db` names the database.
    var config: String? {
        if dbPath != nil { return nil }
        let fm = FileManager.default
        return configPath
            ?? (!fm.fileExists(atPath: "var/fleetd.db")
                && fm.fileExists(atPath: Self.installedConfig)
                ? Self.installedConfig : nil)
    }

    private func resolved() throws -> String {
        if let dbPath { return dbPath }
        guard let config else { return "var/fleetd.db" }
        do {
            return try DaemonConfig.load(path: config).storage.database
        } catch {
            throw ValidationError("config error: \(error)")
        }
    }
}
