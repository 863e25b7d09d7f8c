import ArgumentParser
import FleetBackends
import FleetConfig
import FleetDaemon
import FleetPostgres
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
            "Ingest GPS fixes over UDP, check geofences, raise alerts, store everything in SQLite or PostgreSQL.",
        discussion: """
            fleetd receives tracker fixes (JSON, Teltonika and NMEA over UDP; OsmAnd over \
            HTTP), screens them, checks them against geofences, raises alerts (geofence \
            enter, exit and dwell, overspeed, silent device), computes trips and mileage, \
            commits all of it to SQLite (or PostgreSQL) and acknowledges each device only after the commit. \
            It serves an HTTP API, a live map console and Prometheus metrics (GET /metrics), \
            and delivers alerts to webhooks. \
            Under systemd it reports readiness, status and watchdog keep-alives (sd_notify), \
            takes the UDP sockets of fleetd.socket when socket-activated, and reloads its \
            fences and webhooks on SIGHUP. It exits 0 after a clean stop (SIGTERM), 1 when \
            it cannot start, 2 for a configuration error.
            """)

    @Option(
        name: .long,
        help: "TOML config file (every key has a default; see fleetd.toml(5)).")
    var config: String?

    @Flag(
        name: .long,
        help:
            "Check everything start-up checks (the config, the fences file, webhook secrets, the database folder, the listen addresses), print the result, and exit: 0 when start-up would succeed, 2 otherwise."
    )
    var checkConfig = false

    @Argument(
        help: ArgumentHelp(
            "With --check-config: the config file to check (as --config gives it).",
            valueName: "config-file"))
    var checkedFile: String?

    func validate() throws {
        if checkedFile != nil, !checkConfig {
            throw ValidationError(
                "a config file argument goes with --check-config; to run, use --config FILE")
        }
        if checkedFile != nil, config != nil {
            throw ValidationError("give the config file once: --config FILE or --check-config FILE")
        }
    }

    func run() async throws {
        FileModes.restrict()
        AllocatorPolicy.apply(environment: ProcessInfo.processInfo.environment)
        // A SIGHUP before the reload service traps it (it is installed while
        // start-up goes on, READY=1 may come first) must not end the process
        // by its default action: until then it is ignored (the fences file
        // is being read anyway).
        signal(SIGHUP, SIG_IGN)
        let cfg: DaemonConfig
        let config = self.config ?? checkedFile
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
                let summary = try Preflight.run(cfg)
                try Self.checkDatabase(cfg)
                if cfg.smtp.enabled {
                    for line in try await Daemon.probeSMTP(cfg.smtp, file: config ?? "(defaults)") {
                        print("smtp: " + line)
                    }
                }
                print("config OK: " + summary)
            } catch {
                FileHandle.standardError.write(Data("fleetd: check failed: \(error)\n".utf8))
                throw ExitCode(2)
            }
            return
        }
        do {
            try await Daemon(
                config: cfg, configPath: config, logger: logger, openStore: Backend.openStore
            ).run()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
    }

    /// `--check-config` with PostgreSQL: connects and asks the server's
    /// version (the URL, the password and the server are right). Kept out
    /// of the async `run`: Swift 6.3's optimiser crashed splitting `run`
    /// with this pattern match on a typed-throws initialiser inside it.
    private static func checkDatabase(_ cfg: DaemonConfig) throws {
        if case .postgresql(let settings) = try Backend(config: cfg) {
            _ = try PostgresReader(settings: settings).serverVersion()
        }
    }
}
