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

    func stage(_ clock: HandClock, silentAfterS: Double = 0, silentBatchMax: Int = 1000)
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
            queue: queue, handoff: handoff, fences: FenceIndex(fences: []), states: [:],
            metrics: Metrics(), config: config, clock: clock.clock)
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
}
