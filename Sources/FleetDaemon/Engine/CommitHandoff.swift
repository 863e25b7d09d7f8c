import FleetStorage
import Foundation
import Synchronization

/// A tracked batch on its way from the engine thread to the writer thread:
/// what to commit, and the arrivals whose answers wait for that commit.
struct PendingCommit: Sendable {
    var batch: WriteBatch
    var items: [Arrival]
}

/// The bounded hand-off between tracking and committing: the engine tracks
/// batch n + 1 while the writer commits batch n. `put` blocks while
/// `capacity` batches wait (the writer sets the pace; memory stays bounded);
/// batches are committed in the order they were put. Committed batches
/// come back emptied (`recycle`) for the engine's next ones (`freshBatch`).
final class CommitHandoff: @unchecked Sendable {
    private let cond = NSCondition()
    private var waiting: [PendingCommit] = []
    /// Committed batches, emptied, their room kept: a batch's parts (a
    /// position row, about 150 bytes a fix; the trips under way, as many
    /// again) were allocated afresh on the engine's thread and freed on
    /// the writer's, and the allocator gave the engine new pages each time
    /// (56 000–69 000 page faults on the engine's thread in 630 000 fixes
    /// of the shared harness at 70 000 fixes/s; 13 000–17 000 with these
    /// and the engine's scratch).
    private let spares = Mutex<[WriteBatch]>([])
    /// The most spares kept: one batch is tracked while one commits, so
    /// two are enough for the engine never to wait for one.
    private let sparesMax = 2
    private var closed = false
    /// Set by `poke`: the next `take` returns at once.
    private var poked = false
    let capacity: Int

    init(capacity: Int = 2) { self.capacity = capacity }

    func put(_ c: PendingCommit) {
        cond.lock()
        defer { cond.unlock() }
        while waiting.count >= capacity { cond.wait() }
        waiting.append(c)
        cond.broadcast()
    }

    /// The next batch, or `.some(nil)` after `idle` seconds with none; nil
    /// once closed and drained.
    func take(idle: TimeInterval) -> PendingCommit?? {
        cond.lock()
        defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: idle)
        while waiting.isEmpty {
            if closed { return nil }
            if poked {
                poked = false
                return .some(nil)
            }
            if !cond.wait(until: deadline) && waiting.isEmpty {
                return closed ? nil : .some(nil)
            }
        }
        let c = waiting.removeFirst()
        cond.broadcast()
        return c
    }

    /// An empty batch for the engine to fill: a committed one's parts with
    /// their room kept when one came back, else a new one.
    func freshBatch() -> WriteBatch {
        spares.withLock { $0.popLast() } ?? WriteBatch()
    }

    /// Takes back a committed batch, once nothing else reads it, for
    /// `freshBatch` (emptied here, on the writer's thread).
    func recycle(_ batch: consuming WriteBatch) {
        var batch = batch
        batch.empty()
        spares.withLock { s in
            if s.count < sparesMax { s.append(batch) }
        }
    }

    /// Makes the writer's wait end now (jobs are waiting), or its next one.
    func poke() {
        cond.lock()
        poked = true
        cond.broadcast()
        cond.unlock()
    }

    /// No more batches: `take` returns nil once the last is taken.
    func close() {
        cond.lock()
        closed = true
        cond.broadcast()
        cond.unlock()
    }
}
