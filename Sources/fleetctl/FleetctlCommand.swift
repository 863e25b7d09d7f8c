import ArgumentParser
import FleetBackends
import FleetConfig
import FleetPostgres
import FleetSQLite
import FleetStorage
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
            WebhooksCommand.self, BackupCommand.self, ClusterCommand.self, CommandsCommand.self,
            NotificationsCommand.self, ReportsCommand.self, MaintenanceCommand.self,
        ])

    /// Files fleetctl creates (backups, maps, a new database) are at most
    /// 0640 whatever the caller's umask (`FileModes`).
    static func main() {
        FileModes.restrict()
        main(nil)
    }
}

/// Options every database-reading subcommand takes: which database.
///
/// In order: `--db` (a SQLite file) or `--postgres URL`; else `--config`'s
/// `[storage]` (its `database`, or its `[postgresql]` when `backend =
/// "postgresql"`); else the installed config's (`/etc/fleetd/fleetd.toml`)
/// when that exists; else `var/fleetd.db` (a checkout's `make run`). The
/// installed config comes before the current directory: `sudo fleetctl
/// users passwd` run in someone else's checkout must not change the wrong
/// database. When none was named, the one used is said on stderr.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "Path of fleetd's SQLite database.")
    var dbPath: String?

    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "fleetd's PostgreSQL database, as postgres://USER@HOST:PORT/DATABASE (the password from PGPASSWORD, PGPASSFILE or ~/.pgpass).",
            valueName: "url"))
    var postgresURL: String?

    @Option(
        name: .customLong("config"),
        help: "fleetd's config file: the database its [storage] names is the one read.")
    var configPath: String?

    /// The installed config, used when nothing else names a database.
    static let installedConfig = "/etc/fleetd/fleetd.toml"

    func validate() throws {
        if dbPath != nil, postgresURL != nil {
            throw ValidationError("give one database: --db PATH or --postgres URL")
        }
        _ = try resolved()
        _ = try backend()
        if dbPath == nil, postgresURL == nil, configPath == nil {
            let from = config.map { " (from \($0))" } ?? ""
            FileHandle.standardError.write(
                Data("fleetctl: database \(db)\(from); --db PATH or --config FILE to choose\n".utf8)
            )
        }
    }

    /// The SQLite database's path, by the rule above (with PostgreSQL: the
    /// config's `[storage] database`, beside which fleetd keeps its status file).
    var db: String { (try? resolved()) ?? "var/fleetd.db" }

    /// The config file the database comes from (`--config`, or the
    /// installed one when it is used), nil when `--db` or `--postgres` names it.
    var config: String? {
        if dbPath != nil || postgresURL != nil { return nil }
        return configPath
            ?? (FileManager.default.fileExists(atPath: Self.installedConfig)
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

    /// The database fleetctl works on: `--postgres URL`; else the config's
    /// backend (`Backend(config:)`, one connection); else the SQLite file
    /// `db` names.
    func backend() throws -> Backend {
        do {
            if let postgresURL {
                var s = try PostgresSettings(url: postgresURL)
                s.readPassFileIfNeeded()
                return .postgresql(s)
            }
            guard let config else { return .sqlite(path: db) }
            switch try Backend(config: DaemonConfig.load(path: config)) {
            case .sqlite(let path): return .sqlite(path: path)
            case .postgresql(var s):
                s.poolSize = 1
                return .postgresql(s)
            }
        } catch {
            throw ValidationError("database: \(error)")
        }
    }

    /// A reader of the database; with `waitForIt`, waits for fleetd to create it.
    func reader(waitForIt: Bool = false) throws -> any StoreReading {
        let backend = try backend()
        while true {
            do {
                return try backend.reader(check: true)
            } catch {
                guard waitForIt else { throw Output.fail("fleetctl: \(error)") }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    /// The database's changes (users, tokens, the registry, webhooks).
    func administration() throws -> any StoreAdministration {
        do {
            return try backend().administration()
        } catch let e as StoreError {
            throw Output.fail("fleetctl: \(e)")
        }
    }
}
