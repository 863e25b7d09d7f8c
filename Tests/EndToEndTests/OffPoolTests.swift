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

/// The gate that keeps the off-pool tests to one a core.
@Suite struct OffPoolGateTests {
    actor Count {
        var now = 0
        var most = 0
        func enter() {
            now += 1
            most = max(most, now)
        }
        func leave() { now -= 1 }
    }

    @Test func letsAtMostItsWidthInAndEveryoneInTheEnd() async {
        let gate = OffPoolGate(width: 2)
        let count = Count()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await gate.enter()
                    await count.enter()
                    try? await Task.sleep(for: .milliseconds(5))
                    await count.leave()
                    await gate.leave()
                }
            }
        }
        #expect(await count.most == 2)
        #expect(await count.now == 0)
    }
}

/// Without the trait a test runs on the pool: the check above can fail.
@Suite struct OnPoolTests {
    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(!ThreadPerJobExecutor.isCurrentThreadOurs)
    }
}
