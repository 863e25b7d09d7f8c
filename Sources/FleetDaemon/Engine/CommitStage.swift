import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Logging
import Synchronization

/// The commit stage: a writer thread that owns the `Store`.
///
/// It takes the tracking stage's batches in order from the `CommitHandoff`,
/// commits each in one transaction (group commit), and then hands the
/// committed batch to every `CommitSink` in order (replies last). When a
/// commit fails it keeps the batch and retries with back-off; nothing is
/// acknowledged until it is stored. Between commits (and at least every
/// 0.5 s when idle) it runs the jobs others scheduled on the store
/// (retention), so the store has one writer.
final class CommitStage: @unchecked Sendable {
    private let store: any Store
    private let handoff: CommitHandoff
    private let sinks: [any CommitSink]
    private let metrics: Metrics
    private let logger: Logger
    private let done = DispatchSemaphore(value: 0)
    /// Jobs to run on the writer thread between commits, and whether that
    /// thread has ended.
    private let jobs = Mutex<(waiting: [@Sendable (any Store) -> Void], ended: Bool)>(([], false))
    /// Set when a commit was given up at shutdown: the rest are not tried.
    private var gaveUp = false
    /// True once the tracking stage has stopped taking datagrams: a failing
    /// commit is then given up after 5 s (its senders resend to the next run).
    let stopping = Atomic<Bool>(false)
    /// A commit this slow (ms) is logged with what it held: it is what holds
    /// acknowledgements back.
    static let slowCommitMs: Int64 = 200
    /// Wall-clock time of the writer loop's last turn, Unix ms (for the watchdog).
    let heartbeat = Atomic<Int64>(0)
    /// The webhook subscriptions in force, whose outbox rows each commit
    /// writes with its alerts. Only the writer thread touches it (and
    /// start-up, before that thread starts).
    private var webhooks: [WebhookMatcher] = []
    /// Told of the subscriptions in force whenever they change (the deliveries).
    private let webhooksChanged = Mutex<(@Sendable ([WebhookSubscription]) -> Void)?>(nil)

    init(
        store: any Store, handoff: CommitHandoff, sinks: [any CommitSink], metrics: Metrics,
        logger: Logger
    ) {
        self.store = store
        self.handoff = handoff
        self.sinks = sinks
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts the store's upkeep and the writer thread.
    func start() {
        do {
            try store.startUpkeep { [logger] problem in
                if let problem {
                    logger.warning("storage upkeep failing (retried): \(problem)")
                } else {
                    logger.notice("storage upkeep resumed")
                }
            }
        } catch {
            logger.error("storage upkeep not started: \(error)")
        }
        let thread = Thread { [self] in
            ThreadName.set("fleetd-writer")
            writeLoop()
            done.signal()
        }
        thread.start()
    }

    /// Waits for the writer thread to commit the last batch (the hand-off
    /// must be closed, which the tracking stage does when it finishes).
    func finish() {
        done.wait()
        store.stopUpkeep()
    }

    /// Runs `job` on the writer thread between two commits (as soon as
    /// the commit under way, if any, is done); once that thread has ended,
    /// at once on the caller's (no one else writes then).
    func schedule(_ job: @escaping @Sendable (any Store) -> Void) {
        let queued = jobs.withLock { j in
            if j.ended { return false }
            j.waiting.append(job)
            return true
        }
        if queued { handoff.poke() } else { job(store) }
    }

    /// Runs `job` as `schedule` does and returns what it returns.
    func perform<T: Sendable>(_ job: @escaping @Sendable (any Store) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let result: Result<T, StoreError> = await withCheckedContinuation { c in
            schedule { store in
                do throws(StoreError) {
                    c.resume(returning: .success(try job(store)))
                } catch {
                    c.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Who hears of the subscriptions in force each time they change.
    func onWebhooksChanged(_ body: @escaping @Sendable ([WebhookSubscription]) -> Void) {
        webhooksChanged.withLock { $0 = body }
    }

    /// Re-reads the subscriptions from `store` (start-up, or on the writer
    /// thread in the job that changed them, so that no commit falls between
    /// the change and its effect on the outbox) and tells who listens.
    func reloadWebhooks(_ store: any Store) throws(StoreError) {
        let all = try store.webhooks()
        webhooks = all.map(WebhookMatcher.init)
        let listener = webhooksChanged.withLock { $0 }
        listener?(all)
    }

    /// The names of the subscriptions in force (writer thread, or start-up).
    var webhookNames: [String] { webhooks.map(\.name) }

    /// Fills `batch.outbox` from the subscriptions in force.
    private func addOutbox(_ batch: inout WriteBatch) {
        guard !webhooks.isEmpty, !batch.alerts.isEmpty else { return }
        batch.outbox = Self.outbox(for: batch.alerts, webhooks)
    }

    /// The outbox runs of `alerts`: an alert owed to the same subscriptions
    /// as the one before it lengthens that one's run (compared by their
    /// places in `webhooks`); one owed to none is in no run.
    ///
    /// The subscriptions that take an alert type are worked out once per
    /// call; an alert's device and fence are looked at only for those that
    /// filter on them. A storm's alerts (every one owed to every
    /// subscription, as a plain subscription's are) cost a table look-up each.
    static func outbox(
        for alerts: [Alert], _ webhooks: [WebhookMatcher]
    ) -> [(alerts: Range<Int>, webhooks: [String])] {
        // Per type: the places of the subscriptions taking it, and whether
        // any of them filters more.
        var byType: [AlertType: (takers: [Int], filtered: Bool)] = [:]
        for t in AlertType.allCases {
            let takers = webhooks.indices.filter { webhooks[$0].takes(type: t.rawValue) }
            byType[t] = (takers, takers.contains { webhooks[$0].filtersMore })
        }
        var runs: [(alerts: Range<Int>, webhooks: [String])] = []
        var previous: [Int] = []
        for (k, a) in alerts.enumerated() {
            guard let entry = byType[a.type] else { continue }
            let matched =
                entry.filtered
                ? entry.takers.filter { webhooks[$0].takes(device: a.device, fence: a.fence) }
                : entry.takers
            guard !matched.isEmpty else { continue }
            if let last = runs.indices.last, runs[last].alerts.upperBound == k, matched == previous
            {
                runs[last].alerts = runs[last].alerts.lowerBound..<(k + 1)
            } else {
                runs.append((k..<(k + 1), matched.map { webhooks[$0].name }))
                previous = matched
            }
        }
        return runs
    }

    /// While a batch waits to be committed, the jobs run before it take at
    /// most about this long (at least one runs); the rest wait for the next
    /// turn, so a backlog of jobs (a webhook backlog's deliveries each record
    /// their attempt here) delays each commit by a bounded amount instead of
    /// by all of them.
    static let jobBudgetBeforeCommit = Duration.milliseconds(2)

    /// Runs the jobs waiting (on the writer thread), all of them, or with a
    /// batch waiting (`budget`), those that fit its time; `ending` marks the
    /// thread ended, so later jobs run on their callers.
    private func runJobs(ending: Bool = false, budget: Duration? = nil) {
        let waiting = jobs.withLock { j in
            defer {
                j.waiting.removeAll()
                j.ended = ending
            }
            return j.waiting
        }
        guard !waiting.isEmpty else { return }
        let start = ContinuousClock.now
        defer { metrics.writerJobs.record(ContinuousClock.now - start) }
        guard let budget else {
            for job in waiting { job(store) }
            return
        }
        var ran = 0
        for job in waiting {
            if ran > 0 && ContinuousClock.now - start >= budget { break }
            job(store)
            ran += 1
        }
        if ran < waiting.count {
            let rest = waiting[ran...]
            jobs.withLock { j in j.waiting.insert(contentsOf: rest, at: 0) }
            handoff.poke()
        }
    }

    private func now() -> Int64 { WallClock.system.nowMs() }

    private func writeLoop() {
        while let next = handoff.take(idle: 0.5) {
            heartbeat.store(now(), ordering: .relaxed)
            runJobs(budget: next == nil ? nil : Self.jobBudgetBeforeCommit)
            guard var c = next else { continue }
            addOutbox(&c.batch)
            if let alerts = commit(c.batch) {
                let commit = Commit(
                    batch: c.batch, alerts: alerts, arrivals: c.items, committedMs: now())
                for sink in sinks { sink.committed(commit) }
            }
            // Moved out (not copied), so its parts are not shared when emptied.
            var spent = WriteBatch()
            swap(&spent, &c.batch)
            handoff.recycle(spent)
        }
        runJobs(ending: true)
    }

    /// Commits `batch`, retrying with back-off while storage fails. Returns
    /// its stored alerts; nil only when shutting down with storage still
    /// failing: then the senders get no reply and will resend to the next run.
    private func commit(_ batch: WriteBatch) -> [AlertRecord]? {
        var delay = 0.05
        var failingSince: Date?
        if gaveUp { return nil }
        while true {
            do {
                let started = now()
                let clock = ContinuousClock.now
                let alerts = try store.commit(batch, committedMs: started)
                metrics.commitDuration.record(ContinuousClock.now - clock)
                let took = now() - started
                if took >= Self.slowCommitMs {
                    logger.notice(
                        "slow commit: \(took) ms for \(batch.positions.count) fixes, \(batch.states.count) states, \(batch.alerts.count) alerts"
                    )
                }
                if failingSince != nil { logger.notice("storage recovered; commits resumed") }
                return alerts
            } catch {
                if failingSince == nil {
                    failingSince = Date()
                    logger.error("commit failed, holding acknowledgements and retrying: \(error)")
                }
                metrics.writerFailed(error.underlying)
                if stopping.load(ordering: .relaxed), Date().timeIntervalSince(failingSince!) > 5 {
                    logger.error(
                        "giving up on \(batch.positions.count) unacknowledged fixes at shutdown; senders will resend"
                    )
                    gaveUp = true
                    return nil
                }
                heartbeat.store(now(), ordering: .relaxed)
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 2)
            }
        }
    }
}
