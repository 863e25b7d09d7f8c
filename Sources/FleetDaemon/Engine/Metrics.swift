import FleetProtocols
import FleetStorage
import Synchronization

/// Counters the daemon keeps for `STATUS=` and the logs. Thread-safe.
public final class Metrics: Sendable {
    /// A consistent copy of every counter.
    public struct Snapshot: Sendable {
        public var datagrams = 0
        public var fixesIn = 0
        public var fixesStored = 0
        public var alerts = 0
        public var commits = 0
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
        public var totalRejects: Int { rejects.values.reduce(0, +) }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot { state.withLock { $0 } }

    func received(datagrams: Int, fixes: Int) {
        state.withLock {
            $0.datagrams += datagrams
            $0.fixesIn += fixes
        }
    }

    func rejected(_ proto: String, _ reason: RejectReason, count: Int = 1) {
        state.withLock { $0.rejects["\(proto)/\(reason.rawValue)", default: 0] += count }
    }

    func committed(fixes: Int, alerts: Int, atMs: Int64) {
        state.withLock {
            $0.fixesStored += fixes
            $0.alerts += alerts
            $0.commits += 1
            $0.lastCommitMs = atMs
            $0.writerError = nil
        }
    }

    func writerFailed(_ message: String) { state.withLock { $0.writerError = message } }

    func queueDepth(_ fixes: Int) { state.withLock { $0.queueFixes = fixes } }

    func unwrittenStates(_ count: Int) { state.withLock { $0.statesUnwritten = count } }
}

/// Counts every commit (fixes stored, alerts, when), per batch.
extension Metrics: CommitSink {
    func committed(_ c: Commit) {
        let stored = c.batch.positions.count { $0.disposition != .duplicate }
        committed(fixes: stored, alerts: c.alerts.count, atMs: c.committedMs)
    }
}
