import FleetSystemd
import Foundation
import Logging

/// Every second: a `STATUS=` line for systemd, and `WATCHDOG=1` while the
/// engine loop is alive (when systemd asked for a watchdog).
/// `@unchecked`: the timer is created once and only started and cancelled by
/// the daemon thread; its handler runs on its own serial queue.
final class StatusReporter: @unchecked Sendable {
    private let metrics: Metrics
    private let engine: Engine
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let timer: any DispatchSourceTimer

    init(metrics: Metrics, engine: Engine, notifier: SystemdNotifier, logger: Logger) {
        self.metrics = metrics
        self.engine = engine
        self.notifier = notifier
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "fleetd.status"))
    }

    func start() {
        let watchdog = notifier.watchdogIntervalMicros()
        nonisolated(unsafe) var last = metrics.snapshot()
        nonisolated(unsafe) var lastTime = Date()
        timer.setEventHandler { [self] in
            let now = Date()
            let m = metrics.snapshot()
            let secs = max(now.timeIntervalSince(lastTime), 0.001)
            let rate = Double(m.fixesStored - last.fixesStored) / secs
            last = m
            lastTime = now
            notifier.status(Self.line(m, rate: rate))
            if let watchdog {
                let beat = engine.heartbeat.load(ordering: .relaxed)
                let age = Int64(now.timeIntervalSince1970 * 1000) - beat
                if age * 1000 < Int64(watchdog) { notifier.watchdog() }
            }
        }
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.resume()
    }

    func stop() { timer.cancel() }

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
