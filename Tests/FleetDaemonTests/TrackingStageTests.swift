import FleetConfig
import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Synchronization
import Testing

@testable import FleetDaemon

/// The tracking stage on a clock of its own: fixes in through the queue,
/// batches out through the hand-off, time only from the injected clock.
@Suite struct TrackingStageTests {
    /// A clock the test moves by hand.
    final class HandClock: Sendable {
        let ms: Atomic<Int64>
        init(_ start: Int64) { ms = Atomic(start) }
        var clock: WallClock { WallClock { [self] in ms.load(ordering: .relaxed) } }
        func advance(_ by: Int64) { ms.add(by, ordering: .relaxed) }
    }

    let t0: Int64 = 1_767_571_200_000

    func stage(
        _ clock: HandClock, silentAfterS: Double = 0, silentBatchMax: Int = 1000,
        states: [String: DeviceState] = [:], forgetting: TrackingStage.Forgetting? = nil,
        metrics: Metrics = Metrics()
    )
        -> (TrackingStage, InboundQueue, CommitHandoff)
    {
        var config = DaemonConfig()
        config.tracking.silentAfterS = silentAfterS
        config.tracking.silentBatchMax = silentBatchMax
        config.storage.stateCheckpointS = 0  // every state with its batch
        config.engine.batchMaxDelayMs = 1
        let queue = InboundQueue(capacity: 1000)
        let handoff = CommitHandoff()
        let stage = TrackingStage(
            queue: queue, handoff: handoff, fences: FenceIndex(fences: []), states: states,
            metrics: metrics, config: config, forgetting: forgetting, clock: clock.clock)
        return (stage, queue, handoff)
    }

    /// `body`'s blocking wait on a thread of its own, never on the cooperative pool.
    func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in Thread { c.resume(returning: body()) }.start() }
    }

    /// The next batch handed on within `idle` seconds; `.some(nil)` when none came.
    func next(_ handoff: CommitHandoff, idle: TimeInterval = 10) async -> PendingCommit?? {
        await offPool { handoff.take(idle: idle) }
    }

    /// Whether the wait for a batch ended with none.
    func none(_ r: PendingCommit??) -> Bool {
        if case .some(.none) = r { return true }
        return false
    }

    /// Stops the stage (its queue closed, its thread ended), waited for off the pool.
    func stop(_ stage: TrackingStage) async { await offPool { stage.finish() } }

    func fix(_ device: String, _ time: Int64) -> Fix {
        Fix(device: device, time: time, lat: 48.1, lon: 11.5)
    }

    @Test func fixesAreTrackedAndHandedOnWithTheirArrivals() async throws {
        let clock = HandClock(t0)
        let (stage, queue, handoff) = stage(clock)
        stage.start()
        let a = Arrival(
            fixes: [fix("a", t0 - 2000), fix("a", t0 - 1000)], reply: nil, ack: .none,
            receivedMs: t0)
        #expect(queue.offer([a]) == 1)
        let c = try #require(await next(handoff) ?? nil)
        #expect(c.items.count == 1)
        #expect(c.batch.positions.count == 2)
        #expect(c.batch.states["a"] != nil)
        await stop(stage)
    }

    @Test func silenceIsJudgedOnTheInjectedClock() async throws {
        let clock = HandClock(t0)
        let (stage, queue, handoff) = stage(clock, silentAfterS: 60)
        stage.start()
        #expect(
            queue.offer([Arrival(fixes: [fix("a", t0)], reply: nil, ack: .none, receivedMs: t0)])
                == 1)
        let first = try #require(await next(handoff) ?? nil)
        #expect(!first.batch.alerts.contains { $0.type == .deviceSilent })
        // 59 s on: not yet silent. Idle turns come every half second.
        clock.advance(59_000)
        #expect(none(await next(handoff, idle: 1.5)))
        // A minute on: silent, dated by the clock, once.
        clock.advance(2_000)
        let silent = try #require(await next(handoff) ?? nil)
        let alert = try #require(silent.batch.alerts.first)
        #expect(alert.type == .deviceSilent && alert.device == "a")
        #expect(silent.batch.states["a"]?.silent == true)
        clock.advance(5_000)
        #expect(none(await next(handoff, idle: 1.5)))
        await stop(stage)
    }

    /// `tracking.silent_batch_max`: a fleet silent at once is raised a
    /// bounded batch a second, longest silent first, every device in the end.
    @Test func aSilentFleetIsRaisedInBoundedBatches() async throws {
        let clock = HandClock(t0)
        let (stage, queue, handoff) = stage(clock, silentAfterS: 60, silentBatchMax: 2)
        stage.start()
        // "e" is heard a second before the others: the longest silent.
        #expect(
            queue.offer([Arrival(fixes: [fix("e", t0)], reply: nil, ack: .none, receivedMs: t0)])
                == 1)
        _ = try #require(await next(handoff) ?? nil)
        clock.advance(1_000)
        let rest = ["a", "b", "c", "d"].map { fix($0, t0 + 1000) }
        #expect(
            queue.offer([Arrival(fixes: rest, reply: nil, ack: .none, receivedMs: t0 + 1000)]) == 1)
        _ = try #require(await next(handoff) ?? nil)
        var raised: [[String]] = []
        clock.advance(62_000)
        for _ in 0..<3 {
            let c = try #require(await next(handoff) ?? nil)
            raised.append(c.batch.alerts.filter { $0.type == .deviceSilent }.map(\.device))
            clock.advance(1_000)
        }
        #expect(raised == [["a", "e"], ["b", "c"], ["d"]])
        await stop(stage)
    }

    /// `devices.forget_after_h`: a device silent that long leaves memory
    /// (counted as forgotten); heard again, its stored state comes back, so
    /// it is `device_back` with its counts going on, not a new device.
    @Test func aLongSilentDeviceIsForgottenAndRecalledWithItsState() async throws {
        let clock = HandClock(t0)
        let stored = Mutex<[String: DeviceState]>([:])
        let recalls = Atomic<Int>(0)
        let metrics = Metrics()
        let forgetting = TrackingStage.Forgetting(
            afterMs: 3_600_000,
            recall: { device in
                recalls.add(1, ordering: .relaxed)
                return stored.withLock { $0[device] }
            })
        let (stage, queue, handoff) = stage(
            clock, silentAfterS: 60, forgetting: forgetting, metrics: metrics)
        stage.start()
        /// What the store would hold: every state handed on.
        func keep(_ c: PendingCommit) {
            stored.withLock { s in for (d, st) in c.batch.states { s[d] = st } }
        }
        for k in 0..<3 {
            let t = t0 + Int64(k) * 1000
            #expect(
                queue.offer([Arrival(fixes: [fix("a", t)], reply: nil, ack: .none, receivedMs: t0)])
                    == 1)
            keep(try #require(await next(handoff) ?? nil))
        }
        let accepted = try #require(stored.withLock { $0["a"]?.accepted })
        clock.advance(61_000)
        let silent = try #require(await next(handoff) ?? nil)
        #expect(silent.batch.alerts.map(\.type) == [.deviceSilent])
        keep(silent)
        // An hour after it was last heard: forgotten (nothing to write).
        clock.advance(3_600_000 - 61_000)
        #expect(none(await next(handoff, idle: 1.5)))
        #expect(metrics.snapshot().devicesForgotten == 1)
        #expect(metrics.snapshot().devicesKnown == 0)
        #expect(recalls.load(ordering: .relaxed) == 0)
        // Heard again: its state read back once, and it goes on from it.
        let t = t0 + 3_700_000
        let waiter = CommitWaiter()
        #expect(
            queue.offer([
                Arrival(
                    fixes: [fix("a", t), fix("a", t + 1000)], reply: nil, ack: .waiter(waiter),
                    receivedMs: t)
            ]) == 1)
        let back = try #require(await next(handoff) ?? nil)
        #expect(recalls.load(ordering: .relaxed) == 1)
        #expect(back.items.count == 1)
        #expect(back.batch.alerts.map(\.type) == [.deviceBack])
        #expect(back.batch.states["a"]?.accepted == accepted + 2)
        clock.advance(1_000)
        #expect(none(await next(handoff, idle: 1.5)))
        #expect(metrics.snapshot().devicesForgotten == 0)
        #expect(metrics.snapshot().devicesKnown == 1)
        await stop(stage)
    }

    /// A forgotten device whose state cannot be read is not tracked from
    /// nothing: its datagram is dropped unacknowledged (resent), the others
    /// in the batch go on; loaded at start silent past the limit, a device
    /// is forgotten from the start.
    @Test func aForgottenDeviceWhoseStateCannotBeReadIsNotTrackedFromNothing() async throws {
        let clock = HandClock(t0)
        let old = {
            var s = DeviceState(lastTime: t0 - 7_200_000, lat: 48.1, lon: 11.5, fences: [])
            s.silent = true
            return s
        }()
        let failing = Atomic<Bool>(true)
        struct Unreadable: Error {}
        let forgetting = TrackingStage.Forgetting(
            afterMs: 3_600_000,
            recall: { _ in
                if failing.load(ordering: .relaxed) { throw Unreadable() }
                return old
            })
        let metrics = Metrics()
        let (stage, queue, handoff) = stage(
            clock, states: ["a": old], forgetting: forgetting, metrics: metrics)
        stage.start()
        clock.advance(1_000)
        #expect(none(await next(handoff, idle: 1.5)))
        #expect(metrics.snapshot().devicesForgotten == 1)
        let refused = Atomic<Int>(0)
        let a = CommitWaiter(onFinish: { ok in if !ok { refused.add(1, ordering: .relaxed) } })
        #expect(
            queue.offer([
                Arrival(fixes: [fix("a", t0)], reply: nil, ack: .waiter(a), receivedMs: t0),
                Arrival(fixes: [fix("b", t0)], reply: nil, ack: .none, receivedMs: t0),
            ]) == 2)
        let c = try #require(await next(handoff) ?? nil)
        #expect(c.items.count == 1)
        #expect(c.batch.states["a"] == nil && c.batch.states["b"] != nil)
        #expect(refused.load(ordering: .relaxed) == 1)
        // Readable again: the resent fix brings it back as device_back.
        failing.store(false, ordering: .relaxed)
        #expect(
            queue.offer([Arrival(fixes: [fix("a", t0)], reply: nil, ack: .none, receivedMs: t0)])
                == 1)
        let back = try #require(await next(handoff) ?? nil)
        #expect(back.batch.alerts.map(\.type) == [.deviceBack])
        await stop(stage)
    }
}
