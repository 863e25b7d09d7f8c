import FleetGeo
import FleetProtocols
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation
import Logging
import Synchronization

/// The engine: a tracking thread that owns every device's state, and a
/// writer thread that owns the writing SQLite connection.
///
/// The tracking thread takes batches of datagrams from the queue (one
/// thread hop per batch) and runs the pure tracker over their fixes in
/// arrival order; the writer commits each tracked batch's positions, alerts,
/// trips and due states in one transaction (group commit), in order, and
/// only then sends the replies the senders wait for. The two overlap: batch
/// n + 1 is tracked while batch n commits (at most two wait between them).
/// When a commit fails the writer keeps the batch and retries; nothing is
/// acknowledged until it is stored.
final class Engine: @unchecked Sendable {
    private let queue: InboundQueue
    private let writer: StoreWriter
    /// Devices sharded over the cores by a hash of their id.
    private var shards: [TrackingShard]
    private let settings: TrackerSettings
    private let metrics: Metrics
    private let logger: Logger
    private let maxFixes: Int
    private let alertLog: AlertLog?
    /// Retention window in ms (0: keep forever), and when it last ran.
    private let retainMs: Int64
    private var lastPrune: Int64 = 0
    private let maxDelay: TimeInterval
    /// `device_silent` threshold, ms (0: off; when each device was last heard
    /// from is kept in its shard's entry), and when silence was last checked.
    private let silentAfterMs: Int64
    private var lastSilenceCheck: Int64 = 0
    /// State checkpointing (`storage.state_checkpoint_s`, ms; 0: every
    /// change is written with its batch). Devices whose state changed since
    /// it was last written (flagged `dirty` in their entries), and when each
    /// first changed, oldest first.
    private let checkpointMs: Int64
    private var dirtyOrder: [(device: String, at: Int64)] = []
    private var dirtyHead = 0
    private let done = DispatchSemaphore(value: 0)
    /// Tracked batches waiting for the writer thread, and its end.
    private let handoff = CommitHandoff(capacity: 2)
    private let written = DispatchSemaphore(value: 0)
    /// Set when a commit was given up at shutdown: the rest are not tried.
    private var gaveUp = false
    private let pendingFences = Mutex<FenceIndex?>(nil)
    /// Wall-clock time of the engine loop's last turn, Unix ms (for the watchdog).
    let heartbeat = Atomic<Int64>(0)
    /// The writer thread's replies, one reused batch per socket.
    private var replies: [(socket: UDPSocket, batch: ReplyBatch)] = []
    /// True while the queue is closed: failing commits are given up after a while.
    private let stopping = Atomic<Bool>(false)

    init(
        queue: InboundQueue, writer: StoreWriter, fences: FenceIndex, states: [String: DeviceState],
        unwritten: [String] = [], metrics: Metrics, config: DaemonConfig, logger: Logger,
        alertLog: AlertLog? = nil
    ) {
        self.checkpointMs = Int64(config.stateCheckpointS) * 1000
        self.alertLog = alertLog
        self.retainMs = Int64(config.retainDays * 86_400_000)
        self.queue = queue
        self.writer = writer
        self.settings = config.tracking
        let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 16))
        self.shards = (0..<count).map { _ in
            TrackingShard(tracker: Tracker(fences: fences, settings: config.tracking))
        }
        let start = Int64(Date().timeIntervalSince1970 * 1000)
        for (device, state) in states {
            shards[Self.shard(of: device, count: count)].devices[device] = TrackedDevice(
                state: state, heardMs: start)
        }
        self.metrics = metrics
        self.logger = logger
        self.maxFixes = config.batchMaxFixes
        self.maxDelay = Double(config.batchMaxDelayMs) / 1000
        self.silentAfterMs = Int64(config.silentAfterS * 1000)
        for device in unwritten.sorted() { markDirty(device, at: start) }
    }

    func start() {
        // Names are set from the threads themselves, so `top -H` shows them.
        let writer = Thread { [self] in
            Thread.current.name = "fleetd-writer"
            writeLoop()
            written.signal()
        }
        writer.start()
        let thread = Thread { [self] in
            Thread.current.name = "fleetd-engine"
            run()
            written.wait()
            done.signal()
        }
        thread.start()
    }

    /// Swaps in new fences before the next batch (SIGHUP reload).
    func replaceFences(_ index: FenceIndex) { pendingFences.withLock { $0 = index } }

    /// Closes the queue, lets the engine commit and acknowledge what it holds,
    /// and waits for it to finish.
    func finish() {
        stopping.store(true, ordering: .relaxed)
        queue.close()
        done.wait()
    }

    private func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    private func run() {
        // While states wait to be written, an idle spell of 50 ms (not 0.5 s)
        // wakes the engine to write some.
        while let items = queue.take(
            maxFixes: maxFixes, maxDelay: maxDelay, idle: dirtyHead < dirtyOrder.count ? 0.05 : 0.5)
        {
            heartbeat.store(now(), ordering: .relaxed)
            metrics.queueDepth(queue.depth)
            metrics.unwrittenStates(dirtyOrder.count - dirtyHead)
            if let fresh = pendingFences.withLock({ f -> FenceIndex? in
                defer { f = nil }
                return f
            }) {
                for shard in shards { shard.tracker = Tracker(fences: fresh, settings: settings) }
            }
            var batch = WriteBatch()
            checkSilence(into: &batch)
            if items.isEmpty {
                // Idle: nothing arrived during the idle wait. Dirty states are
                // written now, due or not, a slice per wake-up (a commit of
                // 1 024 states takes ~15 ms, the most a fix arriving meanwhile
                // waits), so a burst's states are not left to come due under
                // the next load, and a crash has less to replay.
                checkpoint(into: &batch, all: true, limit: 1024)
            } else {
                track(items, into: &batch)
                checkpoint(into: &batch, all: false, limit: 64 + batch.positions.count / 2)
            }
            if items.isEmpty && batch.isEmpty { continue }
            handoff.put(PendingCommit(batch: batch, items: items))
        }
        // A clean stop leaves every state written: nothing to replay at the next start.
        while dirtyHead < dirtyOrder.count {
            var batch = WriteBatch()
            checkpoint(into: &batch, all: true, limit: 4096)
            handoff.put(PendingCommit(batch: batch, items: []))
        }
        handoff.close()
    }

    /// The writer thread: commits the tracked batches in order, then sends
    /// their replies; retention runs between commits (and when idle).
    private func writeLoop() {
        while let next = handoff.take(idle: 0.5) {
            pruneIfDue()
            guard let c = next else { continue }
            if commit(c.batch) { sendReplies(c.items) }
        }
    }

    /// Flags `device`'s entry dirty and queues it for a checkpoint (unless it is already).
    private func markDirty(_ device: String, at t: Int64) {
        let shard = shards[Self.shard(of: device, count: shards.count)]
        guard shard.devices[device]?.dirty == false else { return }  // unknown, or queued already
        shard.devices[device]?.dirty = true
        dirtyOrder.append((device, t))
    }

    /// Adds to `batch` the current state of the devices whose state changed
    /// `checkpointMs` ago or more (every changed one when `all`), at most
    /// `limit`: under load the engine passes 64 + half the batch's fixes.
    /// That keeps pace with the states coming due (100 000 devices and a
    /// 10 s interval need 10 000 states/s; at 20 000 fixes/s the cap allows
    /// them plus 64 per commit) while a burst (100 000 devices new at once,
    /// all due 10 s later) is spread thin: at 256 + twice the fixes, the
    /// states dominated the commits after a peak and p99 at half the peak
    /// rose to ~500 ms. States that wait longer than the interval cost only
    /// a longer replay after a crash.
    private func checkpoint(into batch: inout WriteBatch, all: Bool, limit: Int) {
        guard checkpointMs > 0 else { return }
        let due = now() - checkpointMs
        var n = 0
        while dirtyHead < dirtyOrder.count, n < limit, all || dirtyOrder[dirtyHead].at <= due {
            let device = dirtyOrder[dirtyHead].device
            dirtyHead += 1
            let shard = shards[Self.shard(of: device, count: shards.count)]
            shard.devices[device]?.dirty = false
            if let s = shard.devices[device]?.state {
                batch.states[device] = s
                n += 1
            }
        }
        if dirtyHead > 4096 && dirtyHead * 2 > dirtyOrder.count {
            dirtyOrder.removeFirst(dirtyHead)
            dirtyHead = 0
        }
    }

    /// Runs the batch's fixes through the shards (in parallel when the batch
    /// is big enough to pay for the hop) and gathers what they produced in
    /// arrival order, so the stored order of alerts does not depend on the
    /// sharding.
    private func track(_ items: [InboundDatagram], into batch: inout WriteBatch) {
        var fixes: [Fix] = []
        var received: [Int64] = []
        let total = items.reduce(0) { $0 + $1.fixes.count }
        fixes.reserveCapacity(total)
        received.reserveCapacity(total)
        for d in items {
            fixes += d.fixes
            received += repeatElement(d.receivedMs, count: d.fixes.count)
        }
        let count = shards.count
        var parts = [[Int]](repeating: [], count: count)
        for (i, f) in fixes.enumerated() { parts[Self.shard(of: f.device, count: count)].append(i) }
        // A fix near the retention horizon has its state written with it:
        // retention may delete it before a checkpoint would, and replay after
        // a crash needs every fix since the device's checkpoint.
        let stateBefore =
            checkpointMs == 0
            ? Int64.max : retainMs > 0 ? now() - retainMs + checkpointMs + 3_600_000 : .min
        var results = [TrackingShard.Result?](repeating: nil, count: fixes.count)
        fixes.withUnsafeBufferPointer { fx in
            received.withUnsafeBufferPointer { rx in
                results.withUnsafeMutableBufferPointer { out in
                    // Each shard reads all fixes and writes only its own slots.
                    nonisolated(unsafe) let out = out
                    nonisolated(unsafe) let fx = fx
                    nonisolated(unsafe) let rx = rx
                    let parts = parts
                    let shards = self.shards
                    if fixes.count >= 512 && count > 1 {
                        DispatchQueue.concurrentPerform(iterations: count) { k in
                            shards[k].process(
                                fx, received: rx, indices: parts[k], stateBefore: stateBefore,
                                into: out)
                        }
                    } else {
                        for k in 0..<count {
                            shards[k].process(
                                fx, received: rx, indices: parts[k], stateBefore: stateBefore,
                                into: out)
                        }
                    }
                }
            }
        }
        batch.positions.reserveCapacity(fixes.count)
        for (i, fix) in fixes.enumerated() {
            guard let r = results[i] else { continue }
            let outcome = r.outcome
            batch.positions.append(
                PositionRow(fix: fix, disposition: outcome.disposition, receivedMs: received[i]))
            if !outcome.alerts.isEmpty { batch.alerts += outcome.alerts }
            if !outcome.trips.isEmpty { batch.trips += outcome.trips }
            for t in outcome.confirmed { batch.confirmed.append((fix.device, t)) }
            if let s = outcome.state { batch.states[fix.device] = s }
            if r.newlyDirty { dirtyOrder.append((fix.device, received[i])) }
        }
    }

    /// The shard a device belongs to (stable for the life of the process).
    private static func shard(of device: String, count: Int) -> Int {
        count == 1 ? 0 : Int(UInt(bitPattern: device.hashValue) % UInt(count))
    }

    /// At most once a second: `device_silent` for every device not heard from
    /// for `silentAfterMs` (wall clock), into `batch` with its new state.
    private func checkSilence(into batch: inout WriteBatch) {
        guard silentAfterMs > 0 else { return }
        let t = now()
        guard t - lastSilenceCheck >= 1000 else { return }
        lastSilenceCheck = t
        var quiet: [(device: String, heard: Int64)] = []
        for shard in shards {
            for (device, e) in shard.devices where t - e.heardMs >= silentAfterMs {
                if let s = e.state, !s.silent { quiet.append((device, e.heardMs)) }
            }
        }
        for (device, heard) in quiet.sorted(by: { $0.device < $1.device }) {
            let shard = shards[Self.shard(of: device, count: shards.count)]
            guard let state = shard.devices[device]?.state else { continue }
            let (alert, next) = Tracker.silence(state, device: device, lastHeardMs: heard, nowMs: t)
            shard.devices[device]?.state = next
            batch.states[device] = next
            batch.alerts.append(alert)
        }
    }

    /// Retention: between batches, at most every 2 s (sooner while a full
    /// batch was deleted), delete up to 5 000 expired positions in their own
    /// short transaction, so the writer never stalls on a big delete.
    private func pruneIfDue() {
        guard retainMs > 0 else { return }
        let t = now()
        guard t - lastPrune >= 2000 else { return }
        do {
            let deleted = try writer.prune(before: t - retainMs, maxRows: 5000)
            lastPrune = deleted == 5000 ? t - 1900 : t
            if deleted > 0 { logger.debug("retention: deleted \(deleted) positions") }
        } catch {
            lastPrune = t
            logger.error("\(error)")
        }
    }

    /// Commits `batch`, retrying with back-off while storage fails. Returns
    /// false only when shutting down with storage still failing: then the
    /// senders get no reply and will resend to the next run.
    private func commit(_ batch: WriteBatch) -> Bool {
        var delay = 0.05
        var failingSince: Date?
        if gaveUp { return false }
        while true {
            do {
                let committed = try writer.commit(batch, committedMs: now())
                alertLog?.append(committed)
                let stored = batch.positions.count { $0.disposition != .duplicate }
                metrics.committed(fixes: stored, alerts: batch.alerts.count, atMs: now())
                if failingSince != nil { logger.notice("storage recovered; commits resumed") }
                return true
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
                    return false
                }
                heartbeat.store(now(), ordering: .relaxed)
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 2)
            }
        }
    }

    /// Sends the replies of a committed batch, straight from this thread
    /// (`sendmmsg`, one call per socket per 1 024 replies), gathered in the
    /// writer's reused per-socket batches.
    private func sendReplies(_ items: [InboundDatagram]) {
        // Datagrams read in place (no copy of each, with its arrays retained).
        items.withUnsafeBufferPointer { items in
            for i in items.indices {
                guard let socket = items[i].replyTo?.socket else { continue }
                let k =
                    replies.firstIndex { $0.socket === socket }
                    ?? {
                        replies.append((socket, ReplyBatch()))
                        return replies.count - 1
                    }()
                items[i].appendReply(to: &replies[k].batch)
            }
        }
        for k in replies.indices where !replies[k].batch.isEmpty {
            replies[k].socket.send(replies[k].batch)
            replies[k].batch.removeAll()
        }
    }
}
