import FleetHTTP
import FleetModel
import FleetStorage
import FleetWebhooks
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers the webhook outbox: one task per subscription, one batch in
/// flight each (order per subscription), at most `maxInFlight` requests
/// overall; a slow or dead receiver holds up only its own subscription.
///
/// Every state change is stored before it counts: the batch (with its
/// `webhook-id`) is formed and stored by the commit stage's writer before
/// its first attempt, and each attempt's outcome is stored after it. A
/// SIGKILL between the request and the record costs a repeat of that
/// batch, with the same `webhook-id`, after restart. Reads (the alerts of
/// a batch) go through a reader and never hold up the writer.
final class WebhookDelivery: Service, CommitSink, Sendable {
    /// The subscriptions' records and next batches, gathered into writer
    /// jobs between commits (`WebhookStepQueue`).
    private let steps: WebhookStepQueue
    private let reader: any StoreReading
    /// Where the deliveries' reads and JSON run: `fleetd-webhooks`, in the
    /// background (`SCHED_IDLE`). A plain thread, not an event loop: a
    /// PostgreSQL reader waits on its futures there, which an event loop
    /// refuses.
    private let thread = WorkerThread(name: "fleetd-webhooks", background: true)
    /// Where the deliveries' tasks and their HTTP run: a loop of their own,
    /// in the background too.
    private let loop = BackgroundEventLoop()
    private let sender: WebhookSender
    /// Alerts' JSON just read, for the other subscriptions sending them.
    private let lines = AlertLineCache()
    private let logger: Logger
    private let limit: Limiter
    /// The subscriptions in force and each one's task and doorbell.
    private let running = Mutex<[String: Runner]>([:])
    /// Rung when the set of subscriptions changed.
    private let changed = Wakeup()
    private let subscriptions = Mutex<[String: WebhookSubscription]>([:])
    /// How long a subscription with nothing owed waits before looking again
    /// (new alerts ring its bell at once; this catches `fleetctl webhooks retry`).
    static let idle = Duration.seconds(2)
    /// After a batch that was not full, how long alerts gather before the
    /// next one is formed (the first alert after a quiet spell goes at once).
    static let linger = Duration.milliseconds(50)

    private struct Runner {
        let bell: Wakeup
        let task: Task<Void, Never>
    }

    /// Counts each attempt's outcome (`GET /metrics`).
    private let metrics: Metrics?
    /// True while ingest is behind (more fixes wait for the writer than one
    /// group commit takes): a subscription then waits before its next
    /// batch (`yieldStep`, at most `yieldMax` in a row), so a backlog of
    /// deliveries does not take the CPU and the writer's turns the
    /// devices' acknowledgements need. Alerts wait in the outbox meanwhile.
    private let ingestBehind: @Sendable () -> Bool
    static let yieldStep = Duration.milliseconds(50)
    static let yieldMax = Duration.seconds(5)
    init(
        perform: @escaping WebhookStepQueue.Perform, reader: any StoreReading, logger: Logger,
        maxInFlight: Int = 32, metrics: Metrics? = nil,
        ingestBehind: @escaping @Sendable () -> Bool = { false }
    ) {
        self.ingestBehind = ingestBehind
        self.metrics = metrics
        self.steps = WebhookStepQueue(perform: perform)
        self.sender = WebhookSender(eventLoopGroup: loop.group)
        self.reader = reader
        self.logger = logger
        self.limit = Limiter(maxInFlight)
    }

    /// The subscriptions now in force (from the commit stage, as they change).
    func update(_ all: [WebhookSubscription]) {
        subscriptions.withLock { s in
            s = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
        }
        changed.ring()
    }

    /// A commit sink: rings the bell of each subscription owed something new.
    func committed(_ commit: Commit) {
        guard !commit.batch.outbox.isEmpty else { return }
        var names = Set<String>()
        for run in commit.batch.outbox { names.formUnion(run.webhooks) }
        let bells = running.withLock { r in names.compactMap { r[$0]?.bell } }
        for b in bells { b.ring() }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.reconcile()
                await self.changed.wait(.seconds(30))
            }
        }
        let tasks = running.withLock { r in
            defer { r.removeAll() }
            return r.values.map(\.task)
        }
        for t in tasks { t.cancel() }
        for t in tasks { await t.value }
        await sender.shutdown()
        await loop.shutdown()
        thread.close()
    }

    /// Starts a task for each new subscription; stops those of removed ones.
    private func reconcile() {
        let names = Set(subscriptions.withLock { $0.keys })
        running.withLock { r in
            for (name, runner) in r where !names.contains(name) {
                runner.task.cancel()
                r[name] = nil
            }
            for name in names where r[name] == nil {
                let bell = Wakeup()
                r[name] = Runner(
                    bell: bell,
                    task: Task(executorPreference: loop) { [self] in
                        await deliver(name, bell: bell)
                    })
            }
        }
    }

    private func nowMs() -> Int64 { WallClock.system.nowMs() }

    /// Sends `name`'s batches in order until cancelled. An attempt's
    /// outcome is stored and the next batch formed in one step, in the
    /// writer job that takes the other subscriptions' steps of the moment.
    private func deliver(_ name: String, bell: Wakeup) async {
        var failing = false
        var next: WebhookBatch?? = nil  // formed with the last outcome's record
        while !Task.isCancelled {
            await yieldToIngest()
            let now = nowMs()
            let batch: WebhookBatch?
            if let formed = next {
                batch = formed
                next = nil
            } else {
                do {
                    batch = try await steps.run(
                        WebhookStep(webhook: name, formNext: true, nowMs: now))
                } catch {
                    logger.error("webhook \(name): \(error)")
                    await bell.wait(.seconds(1))
                    continue
                }
            }
            guard let batch, let s = subscriptions.withLock({ $0[name] }) else {
                await bell.wait(Self.idle)
                continue
            }
            if batch.nextMs > now {
                try? await Task.sleep(for: .milliseconds(batch.nextMs - now))
                continue
            }
            let attempt: WebhookAttempt
            do {
                attempt = try await send(batch, to: s)
            } catch {
                logger.error("webhook \(name): \(error)")
                await bell.wait(.seconds(1))
                continue
            }
            if Task.isCancelled { return }
            metrics?.webhookAttempt(name, attempt, alerts: batch.count)
            switch attempt {
            case .delivered:
                if failing { logger.notice("webhook \(name): delivering again") }
                failing = false
            case .failed(let e, _), .refused(_, let e, _), .gone(let e):
                if !failing { logger.warning("webhook \(name): \(e); retrying") }
                failing = true
                if case .gone = attempt {
                    logger.error("webhook \(name): the receiver answered 410 Gone; disabled")
                }
            }
            let at = nowMs()
            // A backlog (a full batch, or a retry) goes on at once; alerts
            // trickling in wait `linger` to gather into one request, or
            // every commit would make a request of its own.
            let gather: Bool
            if case .delivered = attempt {
                gather = batch.count < s.batchMax
            } else {
                gather = false
            }
            do {
                let formed = try await steps.run(
                    WebhookStep(
                        webhook: name, attempt: .init(batch: batch, outcome: attempt),
                        formNext: !gather, nowMs: at))
                next = gather ? nil : .some(formed)
            } catch {
                logger.error("webhook \(name): \(error)")
            }
            if gather { try? await Task.sleep(for: Self.linger) }
        }
    }

    /// Waits while ingest is behind, `yieldMax` at most (never starved).
    private func yieldToIngest() async {
        var waited = Duration.zero
        while ingestBehind(), waited < Self.yieldMax, !Task.isCancelled {
            try? await Task.sleep(for: Self.yieldStep)
            waited += Self.yieldStep
        }
    }

    /// One attempt at `batch`: reads its alerts, signs, POSTs, judges.
    private func send(_ batch: WebhookBatch, to s: WebhookSubscription) async throws
        -> WebhookAttempt
    {
        // The alerts read and their JSON made on the deliveries' own thread,
        // in the background; a batch of consecutive
        // ids another subscription has just read is taken from `lines`.
        let body = try await thread.run { [reader, lines] in
            let now = WallClock.system.nowMs()
            if batch.count == Int(batch.lastAlert - batch.firstAlert + 1),
                let cached = lines.lines(batch.firstAlert...batch.lastAlert, nowMs: now)
            {
                return WebhookPayload.body(webhook: s.name, lines: cached)
            }
            let alerts = try reader.webhookAlerts(batch)
            return WebhookPayload.body(webhook: s.name, lines: lines.keep(alerts, nowMs: now))
        }
        let secret = try WebhookSecret(s.secret)
        await limit.acquire()
        let outcome = await sender.send(
            s, secret: secret, messageId: batch.messageId, body: body, nowS: nowMs() / 1000)
        await limit.release()
        return WebhookVerdict.attempt(
            outcome, batch: batch, nowMs: nowMs(), unit: Double.random(in: 0..<1))
    }
}

/// At most `n` holders at once; the others wait in turn.
actor Limiter {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ n: Int) { free = max(n, 1) }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
