import Foundation
import Testing

@testable import FleetDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// Webhook deliveries' thread: its jobs run in order, on a thread of its
/// own, ten nice steps below the caller; errors come back to the caller; once
/// shut down it refuses more.
@Suite struct DeliveryThreadTests {
    struct Boom: Error {}

    @Test func runsJobsBelowTheCallersPriorityAndPassesErrorsBack() async throws {
        let thread = DeliveryThread()
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let mine = getpriority(which, 0)
        let seen = try await thread.run { () -> (Int32, String?) in
            (getpriority(which, 0), Thread.current.name)
        }
        #expect(seen.0 == min(mine + DeliveryThread.nice, 19))
        #expect(seen.1 == "fleetd-webhooks")
        // The caller's own priority is untouched.
        #expect(getpriority(which, 0) == mine)
        await #expect(throws: Boom.self) { try await thread.run { () -> Int in throw Boom() } }
        let order = try await withThrowingTaskGroup(of: Int.self) { group in
            for k in 0..<20 { group.addTask { try await thread.run { k } } }
            var all: [Int] = []
            for try await k in group { all.append(k) }
            return all.sorted()
        }
        #expect(order == Array(0..<20))
        thread.shutdown()
        await #expect(throws: CancellationError.self) { try await thread.run { 1 } }
    }
}
