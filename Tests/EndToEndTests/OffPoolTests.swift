import FleetTestSupport
import Foundation
import Testing

/// The `.offPool` trait every end-to-end suite carries: its tests' blocking
/// bodies run on threads of their own, never on the cooperative pool.
@Suite(.offPool) struct OffPoolTests {
    @Test func aSynchronousBodyRunsOnAThreadOfItsOwn() {
        #expect(ThreadPerJobExecutor.isCurrentThreadOurs)
    }

    /// Whether the caller runs off the pool (synchronous, as a blocking helper is).
    func offThePool() -> Bool { ThreadPerJobExecutor.isCurrentThreadOurs }

    @Test func anAsyncBodyStaysOffThePoolAcrossASuspension() async throws {
        #expect(offThePool())
        try await Task.sleep(for: .milliseconds(10))
        #expect(offThePool())
    }
}

/// Without the trait a test runs on the pool: the check above can fail.
@Suite struct OnPoolTests {
    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(!ThreadPerJobExecutor.isCurrentThreadOurs)
    }
}
