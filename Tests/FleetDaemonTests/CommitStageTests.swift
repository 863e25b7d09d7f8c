import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Logging
import Testing

@testable import FleetDaemon

/// The commit stage against a store double: order, sinks after the commit,
/// retries, jobs between commits.
@Suite struct CommitStageTests {
    func batch(_ n: Int, alerts: Int = 0) -> PendingCommit {
        var b = WriteBatch()
        for i in 0..<n {
            b.positions.append(
                PositionRow(
                    fix: Fix(device: "d", time: Int64(i), lat: 48, lon: 11), disposition: .accepted,
                    receivedMs: 0))
        }
        for i in 0..<alerts {
            b.alerts.append(
                Alert(
                    type: .geofenceEnter, device: "d", time: Int64(i), fence: "f", lat: 48, lon: 11)
            )
        }
        let d = Arrival(fixes: [], reply: nil, ack: .none, receivedMs: 0)
        return PendingCommit(batch: b, items: [d])
    }

    func stage(_ store: RecordingStore, _ sinks: [any CommitSink], handoff: CommitHandoff)
        -> CommitStage
    {
        CommitStage(
            store: store, handoff: handoff, sinks: sinks, metrics: Metrics(),
            logger: Logger(label: "test"))
    }

    /// A committed batch comes back to the engine emptied, its room kept
    /// (the alerts' let go of), while what a sink kept of it stays whole.
    @Test func committedBatchesComeBackEmptiedWithTheirRoom() {
        let store = RecordingStore()
        let sink = RecordingSink(store: store)
        let handoff = CommitHandoff(capacity: 2)
        #expect(handoff.freshBatch().positions.capacity == 0)  // none came back yet
        let s = stage(store, [sink], handoff: handoff)
        s.start()
        for n in [300, 200, 100] { handoff.put(batch(n, alerts: 50)) }
        handoff.close()
        s.finish()
        // Two kept (one tracked while one commits), emptied.
        let spares = [handoff.freshBatch(), handoff.freshBatch(), handoff.freshBatch()]
        #expect(spares.map(\.isEmpty) == [true, true, true])
        #expect(spares[0].positions.capacity >= 100 && spares[1].positions.capacity >= 100)
        #expect(spares[2].positions.capacity == 0)
        #expect(spares.allSatisfy { $0.alerts.capacity == 0 })
        // The sink's batches were shared when they came back: untouched.
        #expect(sink.commits.map(\.commit.batch.positions.count) == [300, 200, 100])
        #expect(sink.commits.map(\.commit.batch.alerts.count) == [50, 50, 50])
    }

    @Test func commitsInOrderAndTellsSinksOnlyAfterEachCommit() {
        let store = RecordingStore()
        let sink = RecordingSink(store: store)
        let metrics = Metrics()
        let handoff = CommitHandoff(capacity: 2)
        let s = CommitStage(
            store: store, handoff: handoff, sinks: [sink, metrics], metrics: metrics,
            logger: Logger(label: "test"))
        s.start()
        for n in 1...5 { handoff.put(batch(n, alerts: n % 2)) }
        handoff.close()
        s.finish()
        #expect(store.batches.map(\.positions.count) == [1, 2, 3, 4, 5])
        #expect(sink.commits.map(\.commit.batch.positions.count) == [1, 2, 3, 4, 5])
        // Each sink call saw its own batch already stored.
        #expect(sink.commits.map(\.storedBatches) == [1, 2, 3, 4, 5])
        #expect(sink.commits.flatMap(\.commit.alerts).map(\.id) == [1, 2, 3])
        #expect(sink.commits.allSatisfy { $0.commit.arrivals.count == 1 })
        #expect(metrics.snapshot().fixesStored == 15)
        #expect(metrics.snapshot().alerts == 3)
    }

    @Test func aFailingStoreIsRetriedAndNothingReachesTheSinksMeanwhile() {
        let store = RecordingStore(failures: 3)
        let sink = RecordingSink(store: store)
        let handoff = CommitHandoff(capacity: 2)
        let metrics = Metrics()
        let s = CommitStage(
            store: store, handoff: handoff, sinks: [sink], metrics: metrics,
            logger: Logger(label: "test"))
        s.start()
        handoff.put(batch(2))
        handoff.close()
        s.finish()
        #expect(store.batches.count == 1)
        #expect(sink.commits.count == 1)
        #expect(sink.commits.first?.storedBatches == 1)
    }

    @Test func jobsRunOnTheWriterBetweenCommitsAndAfterItEnds() async {
        let store = RecordingStore()
        let handoff = CommitHandoff(capacity: 2)
        let s = stage(store, [], handoff: handoff)
        s.start()
        let retention = Retention(retainDays: 1, stage: s, logger: Logger(label: "test"))
        await retention.runOnce()
        #expect(store.prunes == 1)
        handoff.close()
        s.finish()
        await retention.runOnce()  // the writer has ended: run on the caller
        #expect(store.prunes == 2)
    }
}
