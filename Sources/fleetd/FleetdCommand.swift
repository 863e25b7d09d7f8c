import ArgumentParser
import FleetDaemon
import FleetSQLite
import FleetStorage
import FleetSystemd
import Foundation
import Logging

/// `fleetd`: the telemetry-ingestion and geofencing daemon.
@main
struct FleetdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetd",
        abstract:
            "Ingest GPS fixes over UDP, check geofences, raise alerts, store everything in SQLite.")

    @Option(
        name: .long, help: "TOML config file (every key has a default; see config/fleetd.toml).")
    var config: String?

    @Flag(name: .long, help: "Check the config and the fences file, print the result, and exit.")
    var checkConfig = false

    func run() async throws {
        let cfg: DaemonConfig
        do {
            cfg = try config.map { try DaemonConfig.load(path: $0) } ?? DaemonConfig()
        } catch {
            FileHandle.standardError.write(Data("fleetd: config error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let level = Logger.Level(rawValue: cfg.log.level) ?? .info
        // Under systemd with standard error in the journal: native journal
        // entries (priorities, fields); otherwise lines on standard error.
        let journal = Journal.connected()
        LoggingSystem.bootstrap { label in
            if journal {
                var h = JournalLogHandler(label: label)
                h.logLevel = level
                return h
            }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "fleetd")
        if checkConfig {
            do {
                print("config OK: " + (try Preflight.run(cfg)))
            } catch {
                FileHandle.standardError.write(Data("fleetd: check failed: \(error)\n".utf8))
                throw ExitCode(2)
            }
            return
        }
        do {
            try await Daemon(
                config: cfg, configPath: config, logger: logger, openStore: Self.openSQLite
            ).run()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
    }

    /// The SQLite backend (`[storage] database`, `synchronous`).
    @Sendable static func openSQLite(_ c: DaemonConfig) throws -> any Store {
        try SQLiteStore(path: c.storage.database, synchronous: c.storage.synchronous)
    }
}
