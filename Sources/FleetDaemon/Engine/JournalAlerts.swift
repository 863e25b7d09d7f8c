import FleetModel
import FleetStorage
import FleetSystemd
import Synchronization

/// Writes every committed alert to the systemd journal as an entry of its
/// own, so that `journalctl -u fleetd FLEETD_ALERT_TYPE=geofence_exit -f`
/// follows one kind (`[alerts] journal`, when standard error is the
/// journal). Fields: `MESSAGE` ("alert ID: TYPE DEVICE [FENCE]"),
/// `PRIORITY` 5 (notice), `SYSLOG_IDENTIFIER`, `FLEETD_ALERT_ID`,
/// `FLEETD_ALERT_TYPE`, `FLEETD_DEVICE`, `FLEETD_FENCE` (geofence alerts),
/// `FLEETD_ALERT_TIME` (RFC 3339) and `FLEETD_ALERT_JSON` (the alert as
/// `fleetctl alerts --json` gives it).
///
/// A commit sink: the writer only hands each commit's alerts to a thread
/// of their own, `fleetd-journal`, in the background (`SCHED_IDLE`: a
/// send per alert is a system call, and journald takes a core's worth
/// for a storm's alerts), so the journal gets them as ingest leaves a
/// core idle. Beyond `limit` alerts waiting (`alerts.journal_backlog`),
/// alerts are left out of the journal and counted (they are in the
/// database and the API all the same).
final class JournalAlerts: CommitSink, Sendable {
    private let thread = WorkerThread(name: "fleetd-journal", background: true)
    private let waiting = Atomic<Int>(0)
    let limit: Int
    /// Where the alerts left out are counted (`journalLeftOut`).
    private let metrics: Metrics

    init(limit: Int = 10_000, metrics: Metrics) {
        self.limit = limit
        self.metrics = metrics
    }

    func committed(_ commit: Commit) {
        let alerts = commit.alerts
        guard !alerts.isEmpty else { return }
        guard waiting.add(alerts.count, ordering: .relaxed).newValue <= limit,
            thread.submit({ [self] in
                for a in alerts { Journal.send(Self.fields(a)) }
                waiting.subtract(alerts.count, ordering: .relaxed)
            })
        else {
            waiting.subtract(alerts.count, ordering: .relaxed)
            metrics.journalLeftOut(alerts.count)
            return
        }
    }

    /// Sends every alert handed over, then ends the thread (at stop; blocking).
    func flush() { thread.finish() }

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
