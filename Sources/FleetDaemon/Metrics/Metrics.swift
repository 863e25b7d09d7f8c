import FleetModel
import FleetStorage
import Prometheus
import Synchronization

/// Counters the daemon keeps for `STATUS=`, the status file, the logs and
/// `GET /metrics`. Thread-safe. Everything is counted per read batch or
/// per commit, never per fix, so that counting does not cost ingest speed.
public final class Metrics: Sendable {
    /// A consistent copy of every counter.
    public struct Snapshot: Sendable {
        public var datagrams = 0
        public var fixesIn = 0
        public var fixesStored = 0
        /// Fixes committed that were already stored (resends).
        public var duplicates = 0
        public var alerts = 0
        public var commits = 0
        /// Datagrams (requests, for OsmAnd) and fixes received, by protocol.
        public var datagramsBy: [String: Int] = [:]
        public var fixesInBy: [String: Int] = [:]
        /// Alerts committed, by type (`geofence_enter`, …).
        public var alertsBy: [String: Int] = [:]
        /// Rejections by "protocol/reason".
        public var rejects: [String: Int] = [:]
        public var queueFixes = 0
        /// Devices whose state changed since it was last written (what a
        /// crash now would replay from their fixes).
        public var statesUnwritten = 0
        /// Wall-clock time of the last successful commit, Unix ms (0: none yet).
        public var lastCommitMs: Int64 = 0
        /// Set while the writer cannot commit; cleared when it can again.
        public var writerError: String?
        /// Devices the engine holds, and those silent (`device_silent`
        /// raised, no fix since), as of the last second.
        public var devicesKnown = 0
        public var devicesSilent = 0
        /// Devices dropped from the engine's memory after a long silence
        /// (`devices.forget_after_h`), their state kept in the store.
        public var devicesForgotten = 0
        /// Webhook requests by "name/outcome" (`delivered`, `failed`,
        /// `refused`, `gone`), and alerts delivered by subscription name.
        public var webhookRequests: [String: Int] = [:]
        public var webhookAlertsDelivered: [String: Int] = [:]
        /// TCP connections open now, and opened since start, by protocol.
        public var tcpOpen: [String: Int] = [:]
        public var tcpOpened: [String: Int] = [:]
        /// Alerts left out of the journal (`alerts.journal_backlog` waiting).
        public var journalLeftOut = 0
        /// Alerts written to the journal only in a summary entry (more than
        /// `alerts.journal_per_s` a second).
        public var journalSummarized = 0
        public var totalRejects: Int { rejects.values.reduce(0, +) }
    }

    private let state = Mutex(Snapshot())

    /// Where the histograms live and `GET /metrics` is rendered from.
    public let registry = PrometheusCollectorRegistry()
    /// Seconds each commit transaction took (`fleetd_commit_duration_seconds`).
    let commitDuration: DurationHistogram
    /// Seconds the writer spent on each turn of jobs between commits
    /// (`fleetd_writer_jobs_seconds`): webhook records, retention, the API's writes.
    let writerJobs: DurationHistogram
    /// Seconds from the oldest datagram of each acknowledged batch being
    /// read to its acknowledgements being sent (`fleetd_ack_latency_seconds`).
    let ackLatency: DurationHistogram

    public init() {
        let buckets: [Duration] = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
            .seconds(10),
        ]
        commitDuration = registry.makeDurationHistogram(
            descriptor: Self.name(
                "fleetd_commit_duration_seconds",
                "Time one commit transaction took (fixes, states, alerts and outbox of one batch)."),
            buckets: buckets)
        writerJobs = registry.makeDurationHistogram(
            descriptor: Self.name(
                "fleetd_writer_jobs_seconds",
                "Time the writer spent on one turn of jobs between commits (webhook records, retention, the API's writes)."
            ), buckets: buckets)
        ackLatency = registry.makeDurationHistogram(
            descriptor: Self.name(
                "fleetd_ack_latency_seconds",
                "Time from the oldest datagram of an acknowledged batch being read to its acknowledgements being sent (after the commit)."
            ), buckets: buckets)
    }

    /// A metric's full name (Prometheus's conventions: prefix, base unit,
    /// `_total` for counters) and its help text.
    static func name(_ full: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: full, unitName: "", helpText: help)
    }

    public func snapshot() -> Snapshot { state.withLock { $0 } }

    func received(_ proto: String, datagrams: Int, fixes: Int) {
        guard datagrams > 0 || fixes > 0 else { return }
        state.withLock {
            $0.datagrams += datagrams
            $0.fixesIn += fixes
            $0.datagramsBy[proto, default: 0] += datagrams
            $0.fixesInBy[proto, default: 0] += fixes
        }
    }

    /// A connection of `proto` opened (taken at accept) or closed.
    func tcpConnection(_ proto: String, opened: Bool) {
        state.withLock {
            $0.tcpOpen[proto, default: 0] += opened ? 1 : -1
            if opened { $0.tcpOpened[proto, default: 0] += 1 }
        }
    }

    func rejected(_ proto: String, _ reason: RejectReason, count: Int = 1) {
        state.withLock { $0.rejects["\(proto)/\(reason.rawValue)", default: 0] += count }
    }

    func committed(fixes: Int, duplicates: Int = 0, alerts: [String: Int] = [:], atMs: Int64) {
        state.withLock {
            $0.fixesStored += fixes
            $0.duplicates += duplicates
            for (type, n) in alerts {
                $0.alerts += n
                $0.alertsBy[type, default: 0] += n
            }
            $0.commits += 1
            $0.lastCommitMs = atMs
            $0.writerError = nil
        }
    }

    func writerFailed(_ message: String) { state.withLock { $0.writerError = message } }

    func queueDepth(_ fixes: Int) { state.withLock { $0.queueFixes = fixes } }

    func devices(known: Int, silent: Int, forgotten: Int = 0) {
        state.withLock {
            $0.devicesKnown = known
            $0.devicesSilent = silent
            $0.devicesForgotten = forgotten
        }
    }

    func webhookAttempt(_ name: String, _ attempt: WebhookAttempt, alerts: Int) {
        let outcome: String
        switch attempt {
        case .delivered: outcome = "delivered"
        case .failed: outcome = "failed"
        case .refused: outcome = "refused"
        case .gone: outcome = "gone"
        }
        state.withLock {
            $0.webhookRequests["\(name)/\(outcome)", default: 0] += 1
            if outcome == "delivered" { $0.webhookAlertsDelivered[name, default: 0] += alerts }
        }
    }

    func journalLeftOut(_ alerts: Int) { state.withLock { $0.journalLeftOut += alerts } }
    func journalSummarized(_ alerts: Int) { state.withLock { $0.journalSummarized += alerts } }

    func unwrittenStates(_ count: Int) { state.withLock { $0.statesUnwritten = count } }
}

/// Counts every commit (fixes stored, duplicates, alerts by type, when), per batch.
extension Metrics: CommitSink {
    func committed(_ c: Commit) {
        let stored = c.batch.positions.count { $0.disposition != .duplicate }
        var types: [String: Int] = [:]
        for a in c.alerts { types[a.type, default: 0] += 1 }
        committed(
            fixes: stored, duplicates: c.batch.positions.count - stored, alerts: types,
            atMs: c.committedMs)
    }
}
