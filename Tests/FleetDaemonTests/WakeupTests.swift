import Foundation
import Testing

@testable import FleetDaemon

/// Bounds are loose: the suite shares the cooperative pool with every
/// other test, which can hold a waiting task up for many seconds.
@Suite struct WakeupTests {
    @Test func aRingEndsTheWaitAndIsNotRememberedTwice() async {
        let bell = Wakeup()
        bell.ring()  // nobody waits: remembered as one
        var t = Date()
        await bell.wait(.seconds(3600))
        #expect(Date().timeIntervalSince(t) < 600)
        // The wait before ended by a ring, its timer cancelled: this one
        // runs to its limit (it used to end at once, spinning its caller).
        t = Date()
        await bell.wait(.milliseconds(300))
        #expect(Date().timeIntervalSince(t) >= 0.25)
        // Rung while waiting.
        t = Date()
        Task {
            try? await Task.sleep(for: .milliseconds(50))
            bell.ring()
        }
        await bell.wait(.seconds(3600))
        #expect(Date().timeIntervalSince(t) < 600)
    }

    @Test func cancellationEndsTheWait() async {
        let bell = Wakeup()
        let t = Date()
        let waiting = Task { await bell.wait(.seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await waiting.value
        #expect(Date().timeIntervalSince(t) < 600)
    }
}
