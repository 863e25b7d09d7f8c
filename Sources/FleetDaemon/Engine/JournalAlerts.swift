import FleetModel
import FleetStorage
import FleetSystemd
import Foundation
import Synchronization

/// Writes committed alerts to the systemd journal, an entry each (past
/// `alerts.journal_per_s` in a storm, the rest as one summary entry a
/// second: `JournalBudget`), so that `journalctl -u fleetd FLEETD_ALERT_TYPE=geofence_exit -f`
/// follows one kind (`[alerts] journal`, when standard error is the
/// journal). Fields: `MESSAGE` ("alert ID: TYPE DEVICE [FENCE]"),
/// `PRIORITY` 5 (notice), `SYSLOG_IDENTIFIER`, `FLEETD_ALERT_ID`,
/// `FLEETD_ALERT_TYPE`, `FLEETD_DEVICE`, `FLEETD_FENCE` (geofence alerts),
/// `FLEETD_ALERT_TIME` (RFC 3339) and `FLEETD_ALERT_JSON` (the alert as
/// `fleetctl alerts --json` gives it).
///
/// A commit sink: the writer only takes the budget's share of each
/// commit's alerts (`JournalBudget`, `alerts.journal_per_s`: one entry each
/// up to that many a second and every `device_alarm`, the rest in one
/// summary entry a second) and hands it to a thread of its own,
/// `fleetd-journal`, in the background (`SCHED_IDLE`: a send per alert is a
/// system call, and journald takes a core's worth for a storm's alerts), so
/// the journal gets them as ingest leaves a core idle. Beyond `limit`
/// alerts waiting (`alerts.journal_backlog`), alerts are left out of the
/// journal and counted (they are in the database and the API all the
/// same). A summary is written when the next commit finds it a second old,
/// or by a timer a second after it began, or at `flush`.
final class JournalAlerts: CommitSink, Sendable {
    private let thread = WorkerThread(name: "fleetd-journal", background: true)
    private let waiting = Atomic<Int>(0)
    let limit: Int
    /// `alerts.journal_per_s`.
    let perS: Int
    private let budget: Mutex<JournalBudget>
    private let clock: WallClock
    /// Where the alerts left out (`journalLeftOut`) and summed up
    /// (`journalSummarized`) are counted.
    private let metrics: Metrics

    init(limit: Int = 10_000, perS: Int = 1_000, metrics: Metrics, clock: WallClock = .system) {
        self.limit = limit
        self.perS = perS
        self.metrics = metrics
        self.clock = clock
        budget = Mutex(JournalBudget(perS: perS))
    }

    func committed(_ commit: Commit) {
        let alerts = commit.alerts
        guard !alerts.isEmpty else { return }
        let now = clock.nowMs()
        let (send, due, began) = budget.withLock { b in
            let before = b.pending?.sinceMs
            let send = b.take(alerts, nowMs: now)
            let due = b.due(nowMs: now)
            let after = b.pending?.sinceMs
            return (send, due, after != nil && after != before ? after : nil)
        }
        if let began { summarize(after: began) }
        if let due { write(due) }
        guard !send.isEmpty else { return }
        guard waiting.add(send.count, ordering: .relaxed).newValue <= limit,
            thread.submit({ [self] in
                for a in send { Journal.send(Self.fields(a)) }
                waiting.subtract(send.count, ordering: .relaxed)
            })
        else {
            waiting.subtract(send.count, ordering: .relaxed)
            metrics.journalLeftOut(send.count)
            return
        }
    }

    /// Writes the summary begun at `sinceMs` a second on, unless a commit
    /// has written it by then.
    private func summarize(after sinceMs: Int64) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(1)) { [self] in
            let due = budget.withLock { b in b.pending?.sinceMs == sinceMs ? b.takePending() : nil }
            if let due { write(due) }
        }
    }

    private func write(_ summary: JournalSummary) {
        metrics.journalSummarized(summary.total)
        _ = thread.submit { [perS] in Journal.send(summary.fields(perS: perS)) }
    }

    /// Writes the summary still open and every alert handed over, then ends
    /// the thread (at stop; blocking).
    func flush() {
        if let last = budget.withLock({ $0.takePending() }) { write(last) }
        thread.finish()
    }

    static func fields(_ a: AlertRecord) -> [(String, String)] {
        var f: [(String, String)] = [
            ("MESSAGE", "alert \(a.id): \(a.type) \(a.device)" + (a.fence.map { " \($0)" } ?? "")),
            ("PRIORITY", String(Journal.Priority.notice.rawValue)),
            ("SYSLOG_IDENTIFIER", "fleetd"),
            ("FLEETD_ALERT_ID", String(a.id)),
            ("FLEETD_ALERT_TYPE", a.type),
            ("FLEETD_DEVICE", a.device),
            ("FLEETD_ALERT_TIME", RFC3339.format(millis: a.time)),
            ("FLEETD_ALERT_JSON", a.jsonLine),
        ]
        if let fence = a.fence { f.append(("FLEETD_FENCE", fence)) }
        return f
    }
}
