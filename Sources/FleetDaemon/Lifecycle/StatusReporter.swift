import FleetModel
import FleetStorage
import FleetSystemd
import Foundation
import Logging
import Synchronization

/// Every second: a `STATUS=` line for systemd, `WATCHDOG=1` while every
/// part `liveness` watches shows life (when systemd asked for a watchdog),
/// and the status file
/// `fleetctl status` reads (`<database>.status.json`, replaced atomically).
/// `@unchecked`: the timer is created once and only started and cancelled by
/// the daemon thread; its handler runs on its own serial queue.
final class StatusReporter: @unchecked Sendable {
    private let metrics: Metrics
    private let engine: TrackingStage
    /// What must show life before each `WATCHDOG=1`.
    let liveness = Liveness()
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let timer: any DispatchSourceTimer
    private let statusPath: String
    private let started = Date()
    /// What the daemon listens on, for the status file.
    var listening: String {
        get { shown.withLock { $0.listening } }
        set { shown.withLock { $0.listening = newValue } }
    }
    /// The last rate measured, and what the daemon listens on.
    private let shown = Mutex<(rate: Double, listening: String)>((0, ""))

    init(
        metrics: Metrics, engine: TrackingStage, notifier: SystemdNotifier, logger: Logger,
        database: String
    ) {
        self.metrics = metrics
        self.engine = engine
        self.notifier = notifier
        self.logger = logger
        self.statusPath = DaemonStatus.path(database: database)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "fleetd.status"))
    }

    func start() {
        let watchdog = notifier.watchdogIntervalMicros()
        nonisolated(unsafe) var last = metrics.snapshot()
        nonisolated(unsafe) var starved: [String] = []
        nonisolated(unsafe) var lastTime = Date()
        timer.setEventHandler { [self] in
            let now = Date()
            let m = metrics.snapshot()
            let secs = max(now.timeIntervalSince(lastTime), 0.001)
            let rate = Double(m.fixesStored - last.fixesStored) / secs
            last = m
            lastTime = now
            shown.withLock { $0.rate = rate }
            let stale = liveness.stale(
                nowMs: Int64(now.timeIntervalSince1970 * 1000),
                limitMs: Int64((watchdog ?? 10_000_000) / 2000), fixesWaiting: m.queueFixes,
                lastCommitMs: m.lastCommitMs, storageFailing: m.writerError != nil)
            liveness.probe()
            if stale != starved {
                if !stale.isEmpty {
                    logger.critical("not alive: \(stale.joined(separator: "; "))")
                } else {
                    logger.notice("every part alive again")
                }
                starved = stale
            }
            notifier.status(
                (stale.isEmpty ? "" : "NOT ALIVE: \(stale.joined(separator: "; ")); ")
                    + Self.line(m, rate: rate))
            writeFile(m, rate: rate, state: m.writerError == nil ? "running" : "storage failing")
            if watchdog != nil, stale.isEmpty { notifier.watchdog() }
        }
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.resume()
    }

    /// Stops the timer; the status file then says the daemon stopped.
    func stop() {
        timer.cancel()
        writeFile(metrics.snapshot(), rate: 0, state: "stopped")
    }

    /// The status now, as the file would say it (the API's `/status`).
    func current() -> DaemonStatus {
        let m = metrics.snapshot()
        return make(
            m, rate: shown.withLock { $0.rate },
            state: m.writerError == nil ? "running" : "storage failing")
    }

    /// Writes the status file (temporary file + rename: readers never see half of it).
    private func writeFile(_ m: Metrics.Snapshot, rate: Double, state: String) {
        let text = RecordCoding.line(make(m, rate: rate, state: state)) + "\n"
        let tmp = statusPath + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8)) else { return }
        _ = rename(tmp, statusPath)
    }

    private func make(_ m: Metrics.Snapshot, rate: Double, state: String) -> DaemonStatus {
        let now = WallClock.system.nowMs()
        return DaemonStatus(
            pid: getpid(), state: state, timeMs: now,
            startedMs: Int64(started.timeIntervalSince1970 * 1000), listening: listening,
            fixesPerS: Int(rate.rounded()), datagrams: m.datagrams, fixesIn: m.fixesIn,
            fixesStored: m.fixesStored, alerts: m.alerts, commits: m.commits,
            queueFixes: m.queueFixes, statesUnwritten: m.statesUnwritten,
            lastCommitMs: m.lastCommitMs, storageError: m.writerError, rejected: m.rejects)
    }

    /// The one-line status: what the daemon is doing now.
    static func line(_ m: Metrics.Snapshot, rate: Double) -> String {
        var s: String
        if let err = m.writerError {
            s = "STORAGE FAILING, not acknowledging, retrying: \(err.prefix(120))"
        } else {
            s = "ingesting \(Int(rate.rounded())) fixes/s"
        }
        s += "; stored \(m.fixesStored); alerts \(m.alerts); queue \(m.queueFixes)"
        if m.totalRejects > 0 {
            let top = m.rejects.sorted { $0.value > $1.value }.prefix(3).map {
                "\($0.key) \($0.value)"
            }
            s += "; rejected \(m.totalRejects) (\(top.joined(separator: ", ")))"
        }
        return s
    }
}
