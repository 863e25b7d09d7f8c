import Foundation
import Testing

@testable import FleetDaemon

/// A worker thread (the webhook deliveries' one here): its jobs run in
/// order, on a thread of its own, named, in the background (`SCHED_IDLE`);
/// errors come back to the caller; once closed it refuses more, and
/// `finish` returns after what it held has run.
@Suite struct WorkerThreadTests {
    struct Boom: Error {}

    @Test func runsJobsInTheBackgroundAndPassesErrorsBack() async throws {
        let thread = WorkerThread(name: "fleetd-webhooks", background: true)
        #expect(!ThreadNice.isBackground)
        let seen = try await thread.run { () -> (Bool, String?) in
            (ThreadNice.isBackground, Thread.current.name)
        }
        #expect(seen.0)
        #expect(seen.1 == "fleetd-webhooks")
        // The caller's own policy is untouched.
        #expect(!ThreadNice.isBackground)
        await #expect(throws: Boom.self) { try await thread.run { () -> Int in throw Boom() } }
        let order = try await withThrowingTaskGroup(of: Int.self) { group in
            for k in 0..<20 { group.addTask { try await thread.run { k } } }
            var all: [Int] = []
            for try await k in group { all.append(k) }
            return all.sorted()
        }
        #expect(order == Array(0..<20))
        thread.close()
        await #expect(throws: CancellationError.self) { try await thread.run { 1 } }
    }

    /// The deliveries' tasks and HTTP: on the loop's own thread, in the background.
    @Test func aTaskPreferringTheBackgroundLoopRunsThere() async {
        let loop = BackgroundEventLoop()
        let seen = await Task(executorPreference: loop) {
            (ThreadNice.isBackground, loop.loop.inEventLoop)
        }.value
        #expect(seen.0 && seen.1)
        #expect(!ThreadNice.isBackground)
        await loop.shutdown()
    }

    @Test func finishRunsWhatItHoldsInOrderThenRefuses() {
        let thread = WorkerThread(name: "fleetd-test")
        let log = Log()
        for k in 0..<100 { #expect(thread.submit { log.add(k) }) }
        thread.finish()
        #expect(log.all == Array(0..<100))
        #expect(!thread.submit { log.add(-1) })
        // Never started: nothing to wait for.
        WorkerThread(name: "idle").finish()
    }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Int] = []
        func add(_ k: Int) { lock.withLock { items.append(k) } }
        var all: [Int] { lock.withLock { items } }
    }
}
