import FleetConfig
import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Synchronization

/// The tracking stage: a thread that owns every device's state.
///
/// It takes batches of datagrams from the queue (one thread hop per batch),
/// runs the pure tracker over their fixes in arrival order (sharded over the
/// cores), adds the device states due for their checkpoint and the silence
/// alerts, and hands each `WriteBatch` with its datagrams to the commit
/// stage through a bounded `CommitHandoff` (batch n + 1 is tracked while
/// batch n commits). It never touches storage.
final class TrackingStage: @unchecked Sendable {
    private let queue: InboundQueue
    /// Devices sharded over the cores by a hash of their id.
    private var shards: [TrackingShard]
    /// A thread of its own for each shard but the first
    /// (`fleetd-track-1`, …), which tracks a big enough batch's fixes of
    /// that shard while this thread tracks shard 0's. Not Dispatch's
    /// global queues: on Linux those are the threads Swift concurrency's
    /// tasks run on, and a batch's tracking would wait for a free one.
    private let helpers: [WorkerThread]
    private let settings: TrackerSettings
    private let metrics: Metrics
    private let maxFixes: Int
    private let maxDelay: TimeInterval
    /// `device_silent` threshold, ms (0: off; when each device was last heard
    /// from is kept in its shard's entry), and when silence was last checked.
    private let silentAfterMs: Int64
    /// Most silences raised a second (`tracking.silent_batch_max`).
    private let silentBatchMax: Int
    private var lastSilenceCheck: Int64 = 0
    /// State checkpointing (`storage.state_checkpoint_s`): the devices
    /// whose state changed since it was last written (flagged `dirty` in
    /// their entries), oldest first.
    private var checkpoints: CheckpointSchedule
    private var checkpointMs: Int64 { checkpoints.intervalMs }
    private let done = DispatchSemaphore(value: 0)
    private let pendingFences = Mutex<FenceIndex?>(nil)
    /// Where tracked batches go: the commit stage takes them in order.
    private let handoff: CommitHandoff
    /// Retention window in ms (0: keep forever): a fix near its horizon has
    /// its state written with it.
    private let retainMs: Int64
    /// Wall-clock time of the tracking loop's last turn, Unix ms (for the watchdog).
    let heartbeat = Atomic<Int64>(0)
    /// Cluster: the leases that decide which devices this node tracks (nil:
    /// every device). The shards then hold exactly the devices leased here.
    private var leases: ClusterLeases?
    /// The wall clock: when devices were last heard from, silence,
    /// checkpoints due, lease renewals and the retention horizon.
    private let clock: WallClock
    /// Forgetting (`devices.forget_after_h`; not in a cluster): a device
    /// silent this long, its state written, is dropped from the shards and
    /// its id kept in `forgotten`; when it is heard again, `recall` reads
    /// its state from the store. nil: nothing is forgotten.
    private let forgetting: Forgetting?
    private var forgotten = Set<String>()

    /// How long a silent device is kept, and how its state comes back.
    struct Forgetting: Sendable {
        /// Silence after which a device is dropped, ms (> 0).
        var afterMs: Int64
        /// The stored state of a device (nil: none stored). Runs on the
        /// engine's own thread; throws when the store cannot answer.
        var recall: @Sendable (String) throws -> DeviceState?
    }

    /// The devices' groups the shards filter alerts by; told whether the
    /// fences need them.
    private let groups: DeviceGroups

    /// A batch's fixes, their receive times and the shards' results, kept
    /// from batch to batch (emptied, capacity kept). Made afresh for each
    /// batch, the results (about 200 bytes a fix) came from new pages of
    /// the allocator every time (with the batches, `CommitHandoff`'s
    /// spares: 56 000–69 000 page faults on this thread in 630 000 fixes
    /// of the shared harness at 70 000 fixes/s, 13 000–17 000 with both).
    private var scratch = Scratch()

    struct Scratch {
        var fixes: [Fix] = []
        var received: [Int64] = []
        var results: [TrackingShard.Result?] = []
    }

    /// `clock` is the system's in the daemon; tests pass one of their own.
    init(
        queue: InboundQueue, handoff: CommitHandoff, fences: FenceIndex,
        states: [String: DeviceState], unwritten: [String] = [], metrics: Metrics,
        config: DaemonConfig, membership: (any ClusterMembership)? = nil,
        forgetting: Forgetting? = nil, clock: WallClock = .system,
        groups: DeviceGroups = DeviceGroups()
    ) {
        self.clock = clock
        self.forgetting = membership == nil ? forgetting : nil
        self.leases = membership.map(ClusterLeases.init)
        self.checkpoints = CheckpointSchedule(
            intervalMs: Int64(config.storage.stateCheckpointS) * 1000)
        self.retainMs = Int64(config.storage.retainDays * 86_400_000)
        self.queue = queue
        self.handoff = handoff
        self.settings = config.tracking.settings
        let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 16))
        self.helpers = (1..<count).map { WorkerThread(name: "fleetd-track-\($0)") }
        self.shards = (0..<count).map { _ in
            TrackingShard(
                tracker: Tracker(fences: fences, settings: config.tracking.settings), groups: groups
            )
        }
        self.groups = groups
        groups.neededByFences = !shards[0].audience.isEmpty
        let start = clock.nowMs()
        let replayed = Set(unwritten)
        for (device, state) in states {
            // Silent longer than the limit by its last fix: forgotten from the start.
            if let f = self.forgetting, state.silent, !replayed.contains(device),
                start - state.lastTime >= f.afterMs
            {
                forgotten.insert(device)
                continue
            }
            shards[Self.shard(of: device, count: count)].devices[device] = TrackedDevice(
                state: state, heardMs: start)
        }
        self.metrics = metrics
        self.maxFixes = config.engine.batchMaxFixes
        self.maxDelay = Double(config.engine.batchMaxDelayMs) / 1000
        self.silentAfterMs = Int64(config.tracking.silentAfterS * 1000)
        self.silentBatchMax = config.tracking.silentBatchMax
        for device in unwritten.sorted() { markDirty(device, at: start) }
    }

    /// Starts the tracking thread. Once the queue is closed and drained and
    /// every state handed on, it closes the hand-off and ends.
    func start() {
        // Named from the thread itself, so `top -H` shows it.
        let thread = Thread { [self] in
            ThreadName.set("fleetd-engine")
            run()
            done.signal()
        }
        thread.start()
    }

    /// Swaps in new fences before the next batch (SIGHUP reload).
    func replaceFences(_ index: FenceIndex) { pendingFences.withLock { $0 = index } }

    /// Closes the queue, tracks what it holds, hands on every dirty state,
    /// closes the hand-off, and waits for the thread to end.
    func finish() {
        queue.close()
        done.wait()
    }

    private func now() -> Int64 { clock.nowMs() }

    /// The most due states written with one batch of fixes. A state is a
    /// random page of the states table (about 20 µs of the writer's time
    /// each); an alert storm's 100 000 states all come due together one
    /// checkpoint interval later, and with half of each batch as the only
    /// bound, the commits grew with the backlog they made (measured on the
    /// shared harness: 300–900 states a batch, acknowledgements 50–90 ms
    /// behind at 50 000 fixes/s). At this bound, 100 batches a second write
    /// 25 600 states a second, more than 100 000 devices changing every
    /// second need with the default 10 s interval; what a longer overload
    /// leaves waiting is written when the engine is idle.
    static let statesPerBatchMax = 256

    private func run() {
        // While states wait to be written, an idle spell of 50 ms (not 0.5 s)
        // wakes the engine to write some.
        while let items = queue.take(
            maxFixes: maxFixes, maxDelay: maxDelay, idle: checkpoints.waiting > 0 ? 0.05 : 0.5)
        {
            heartbeat.store(now(), ordering: .relaxed)
            metrics.queueDepth(queue.depth)
            metrics.unwrittenStates(checkpoints.waiting)
            if let fresh = pendingFences.withLock({ f -> FenceIndex? in
                defer { f = nil }
                return f
            }) {
                for shard in shards { shard.use(Tracker(fences: fresh, settings: settings)) }
                groups.neededByFences = !shards[0].audience.isEmpty
            }
            var batch = handoff.freshBatch()
            var items = items
            if leases != nil {
                renewLeases(into: &batch)
                items = takeLeases(items)
            }
            if !forgotten.isEmpty { items = recallForgotten(items) }
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
                checkpoint(
                    into: &batch, all: false,
                    limit: min(64 + batch.positions.count / 2, Self.statesPerBatchMax))
            }
            if items.isEmpty && batch.isEmpty { continue }
            handoff.put(PendingCommit(batch: batch, items: items))
        }
        // A clean stop leaves every state written: nothing to replay at the next start.
        while checkpoints.waiting > 0 {
            var batch = WriteBatch()
            checkpoint(into: &batch, all: true, limit: 4096)
            handoff.put(PendingCommit(batch: batch, items: []))
        }
        metrics.unwrittenStates(0)  // what the status file says after a clean stop
        for h in helpers { h.finish() }
        handoff.close()
    }

    /// Cluster, at most every fifth of a lease: renews this node's leases;
    /// hands over (state written, lease given up, in `batch`) the devices
    /// another node wants that have been quiet here a second; forgets those
    /// whose lease was lost (a renewal lapsed and another node took them).
    private func renewLeases(into batch: inout WriteBatch) {
        guard var leases else { return }
        defer { self.leases = leases }
        let shards = self.shards
        let known = shards.reduce(0) { $0 + $1.devices.count }
        let renewal: ClusterLeases.Renewal?
        do {
            renewal = try leases.renewIfDue(nowMs: now(), devices: known) { device in
                shards[Self.shard(of: device, count: shards.count)].devices[device]?.heardMs
            }
        } catch {
            metrics.writerFailed("cluster: \(error)")
            return
        }
        guard let renewal else { return }
        for device in renewal.handOver {
            let shard = shards[Self.shard(of: device, count: shards.count)]
            if let s = shard.devices[device]?.state { batch.states[device] = s }
            batch.releases.append(device)
            shard.devices[device] = nil
        }
        if let held = renewal.held {
            for shard in shards {
                for device in shard.devices.keys where !held.contains(device) {
                    shard.devices[device] = nil
                }
            }
        }
    }

    /// Cluster: takes the leases of the devices of `items` this node does
    /// not hold yet, resuming each one taken from its stored state and the
    /// fixes stored after it; returns `items` without the datagrams of
    /// devices another node holds (not tracked, not acknowledged: resent).
    private func takeLeases(_ items: [Arrival]) -> [Arrival] {
        guard let leases, !items.isEmpty else { return items }
        var unknown = Set<String>()
        for d in items {
            for f in d.fixes
            where shards[Self.shard(of: f.device, count: shards.count)]
                .devices[f.device] == nil
            {
                unknown.insert(f.device)
            }
        }
        guard !unknown.isEmpty else { return items }
        let taken: [String: ClusterResume]
        do {
            taken = try leases.acquire(unknown)
        } catch {
            metrics.writerFailed("cluster: \(error)")
            taken = [:]
        }
        let t = now()
        var tracker: Tracker?
        for (device, resume) in taken {
            var state = resume.state
            if !resume.fixes.isEmpty {
                if tracker == nil {
                    tracker = Tracker(fences: shards[0].tracker.fences, settings: settings)
                }
                for fix in resume.fixes {
                    if let s = tracker!.process(fix, state: state).newState { state = s }
                }
            }
            shards[Self.shard(of: device, count: shards.count)].devices[device] = TrackedDevice(
                state: state, heardMs: t, rewind: state.map(Rewind.init(resuming:)))
            if !resume.fixes.isEmpty { markDirty(device, at: t) }
        }
        let refused = unknown.subtracting(taken.keys)
        guard !refused.isEmpty else { return items }
        return items.filter { d in
            guard d.fixes.contains(where: { refused.contains($0.device) }) else { return true }
            metrics.rejected("cluster", .ownedElsewhere, count: d.fixes.count)
            d.ack.dropped()
            return false
        }
    }

    /// Devices forgotten after a long silence that `items` bring back: each
    /// one's stored state read (`Forgetting.recall`) and tracked again, as
    /// if it had never left memory. A device whose state cannot be read
    /// stays forgotten, and the datagrams with its fixes are dropped
    /// unacknowledged (their senders resend), rather than tracked from no
    /// state (which would raise its fences' entries again).
    private func recallForgotten(_ items: [Arrival]) -> [Arrival] {
        guard let forgetting else { return items }
        var failed = Set<String>()
        let t = now()
        for d in items {
            for f in d.fixes where forgotten.contains(f.device) && !failed.contains(f.device) {
                do {
                    let state = try forgetting.recall(f.device)
                    forgotten.remove(f.device)
                    shards[Self.shard(of: f.device, count: shards.count)].devices[f.device] =
                        TrackedDevice(
                            state: state, heardMs: t, rewind: state.map(Rewind.init(resuming:)))
                } catch {
                    metrics.writerFailed("reading the state of device \(f.device): \(error)")
                    failed.insert(f.device)
                }
            }
        }
        guard !failed.isEmpty else { return items }
        return items.filter { d in
            guard d.fixes.contains(where: { failed.contains($0.device) }) else { return true }
            d.ack.dropped()
            return false
        }
    }

    /// Flags `device`'s entry dirty and queues it for a checkpoint (unless it is already).
    private func markDirty(_ device: String, at t: Int64) {
        let shard = shards[Self.shard(of: device, count: shards.count)]
        guard shard.devices[device]?.dirty == false else { return }  // unknown, or queued already
        shard.devices[device]?.dirty = true
        checkpoints.queue(device, at: t)
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
        let shards = self.shards
        // Room for them at once: grown one doubling at a time, the
        // dictionary copied its states (about 400 bytes each) each time.
        batch.states.reserveCapacity(batch.states.count + min(limit, checkpoints.waiting))
        checkpoints.takeDue(nowMs: now(), all: all, limit: limit) { device in
            let shard = shards[Self.shard(of: device, count: shards.count)]
            shard.devices[device]?.dirty = false
            guard let s = shard.devices[device]?.state else { return false }
            batch.states[device] = s
            return true
        }
    }

    /// The fewest fixes in a batch that are tracked on the shards in
    /// parallel (fewer: one after the other on this thread). At 50 000
    /// fixes/s on two cores a batch holds 100–350 fixes; with 512 they were
    /// tracked on this thread alone, and an acknowledgement waited for the
    /// whole batch's tracking (the shared harness, fleetd's half alone,
    /// alternated, seven runs each: p99 at 50 000 fixes/s 12.9–76.5 ms,
    /// median 18.9, against 27.9–64.6, median 35.7, for the same fleetd
    /// CPU). 32 was no better than 128 (three runs: 10.5–39.7 ms).
    static let parallelFixesMin = 128

    /// Runs the batch's fixes through the shards (in parallel when the batch
    /// is big enough to pay for the hop) and gathers what they produced in
    /// arrival order, so the stored order of alerts does not depend on the
    /// sharding.
    private func track(_ items: [Arrival], into batch: inout WriteBatch) {
        // The scratch is taken out for the batch and put back emptied.
        var fixes = scratch.fixes
        var received = scratch.received
        var results = scratch.results
        scratch = Scratch()
        defer {
            fixes.removeAll(keepingCapacity: true)
            received.removeAll(keepingCapacity: true)
            results.removeAll(keepingCapacity: true)
            scratch = Scratch(fixes: fixes, received: received, results: results)
        }
        let total = items.reduce(0) { $0 + $1.fixes.count }
        fixes.reserveCapacity(total)
        received.reserveCapacity(total)
        for d in items {
            d.fixes.append(to: &fixes)
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
        results.append(contentsOf: repeatElement(nil, count: fixes.count))
        fixes.withUnsafeBufferPointer { fx in
            received.withUnsafeBufferPointer { rx in
                results.withUnsafeMutableBufferPointer { out in
                    // Each shard reads all fixes and writes only its own slots.
                    nonisolated(unsafe) let out = out
                    nonisolated(unsafe) let fx = fx
                    nonisolated(unsafe) let rx = rx
                    let parts = parts
                    let shards = self.shards
                    let helpers = self.helpers
                    if fixes.count >= Self.parallelFixesMin && count > 1 {
                        // Shards 1… on their own threads, shard 0 on this
                        // one; the buffers outlive the jobs (all waited for).
                        let finished = DispatchSemaphore(value: 0)
                        for k in 1..<count {
                            let job: @Sendable () -> Void = {
                                shards[k].process(
                                    fx, received: rx, indices: parts[k],
                                    stateBefore: stateBefore, into: out)
                                finished.signal()
                            }
                            // A helper closed (the engine stopping): run here.
                            if !helpers[k - 1].submit(job) { job() }
                        }
                        shards[0].process(
                            fx, received: rx, indices: parts[0], stateBefore: stateBefore,
                            into: out)
                        for _ in 1..<count { finished.wait() }
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
        leases?.tracked(fixes.count)
        batch.positions.reserveCapacity(fixes.count)
        for (i, fix) in fixes.enumerated() {
            // Moved out of its slot, not copied (its arrays retained).
            var slot: TrackingShard.Result?
            swap(&slot, &results[i])
            guard let r = consume slot else { continue }
            let outcome = r.outcome
            batch.positions.append(
                PositionRow(fix: fix, disposition: outcome.disposition, receivedMs: received[i]))
            if !outcome.alerts.isEmpty { batch.alerts += outcome.alerts }
            if !outcome.trips.isEmpty { batch.trips += outcome.trips }
            for t in outcome.confirmed { batch.confirmed.append((fix.device, t)) }
            if let s = outcome.state { batch.states[fix.device] = s }
            switch r.trip {
            case .unchanged: break
            case .underWay(let t): batch.tripsUnderWay.append((fix.device, t))
            case .ended: batch.tripsUnderWay.append((fix.device, nil))
            }
            if r.newlyDirty { checkpoints.queue(fix.device, at: received[i]) }
        }
    }

    /// The shard a device belongs to (stable for the life of the process).
    private static func shard(of device: String, count: Int) -> Int {
        count == 1 ? 0 : Int(UInt(bitPattern: device.hashValue) % UInt(count))
    }

    /// At most once a second: `device_silent` for the devices not heard from
    /// for `silentAfterMs` (wall clock), into `batch` with their new states,
    /// at most `silentBatchMax` of them, longest silent first (the rest
    /// come in the next seconds); and the devices known and silent counted
    /// for the metrics.
    private func checkSilence(into batch: inout WriteBatch) {
        let t = now()
        guard t - lastSilenceCheck >= 1000 else { return }
        lastSilenceCheck = t
        var quiet: [(device: String, heard: Int64)] = []
        var forget: [String] = []
        var known = 0
        var silent = 0
        // Every entry each second: only its inline fields are read
        // (`TrackedDevice.isSilent`), never its state.
        for shard in shards {
            known += shard.devices.count
            let devices = shard.devices
            for i in devices.indices {
                let heard = devices.values[i].heardMs
                if devices.values[i].isSilent {
                    silent += 1
                    if let f = forgetting, !devices.values[i].dirty, t - heard >= f.afterMs {
                        forget.append(devices.keys[i])
                    }
                } else if silentAfterMs > 0, t - heard >= silentAfterMs,
                    devices.values[i].hasState
                {
                    quiet.append((devices.keys[i], heard))
                }
            }
        }
        for device in forget {
            shards[Self.shard(of: device, count: shards.count)].devices[device] = nil
            forgotten.insert(device)
        }
        metrics.devices(
            known: known - forget.count, silent: silent - forget.count + quiet.count,
            forgotten: forgotten.count)
        if quiet.count > silentBatchMax {
            quiet.sort { ($0.heard, $0.device) < ($1.heard, $1.device) }
            quiet.removeSubrange(silentBatchMax...)
        }
        for (device, heard) in quiet.sorted(by: { $0.device < $1.device }) {
            let shard = shards[Self.shard(of: device, count: shards.count)]
            guard let state = shard.devices[device]?.state else { continue }
            let (alert, next) = Silence.raise(state, device: device, lastHeardMs: heard, nowMs: t)
            shard.devices[device]?.state = next
            batch.states[device] = next
            batch.alerts.append(alert)
        }
    }
}
