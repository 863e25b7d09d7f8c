import FleetStorage
import Foundation

/// A tracked batch on its way from the engine thread to the writer thread:
/// what to commit, and the arrivals whose answers wait for that commit.
struct PendingCommit: Sendable {
    var batch: WriteBatch
    var items: [Arrival]
}

/// The bounded hand-off between tracking and committing: the engine tracks
/// batch n + 1 while the writer commits batch n. `put` blocks while
/// `capacity` batches wait (the writer sets the pace; memory stays bounded);
/// batches are committed in the order they were put.
final class CommitHandoff: @unchecked Sendable {
    private let cond = NSCondition()
    private var waiting: [PendingCommit] = []
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
