import Testing

@testable import FleetDaemon

/// An open registry's budget of new ids: per source, in all, by window.
@Suite struct NewDeviceBudgetTests {
    @Test func newIdsAreCountedPerSourceAndInAllWithinAWindow() {
        let budget = NewDeviceBudget(
            limits: .init(perSource: 2, total: 3, windowMs: 60_000, exemptLoopback: false),
            known: ["old"])
        var asked = 0
        func admit(_ d: String, _ from: String, at t: Int64 = 0) -> Bool {
            budget.admit(
                d,
                source: {
                    asked += 1
                    return from
                }, nowMs: t)
        }
        #expect(admit("old", "a"))  // known: no budget spent, no address looked up
        #expect(asked == 0)
        #expect(admit("n1", "a") && admit("n2", "a"))
        #expect(!admit("n3", "a"))  // a's two spent
        #expect(admit("n1", "a"))  // taken once, known since
        #expect(admit("m1", "b"))
        #expect(!admit("m2", "b"))  // three in all
        #expect(budget.isKnown("n2") && !budget.isKnown("n3"))
        // The next window starts again.
        #expect(admit("n3", "a", at: 60_000) && admit("m2", "b", at: 60_000))
    }

    @Test func theMachineItselfIsNotCountedUnlessAsked() {
        let open = NewDeviceBudget(
            limits: .init(perSource: 1, total: 1, windowMs: 60_000), known: [])
        for k in 0..<1000 {
            #expect(open.admit("d\(k)", source: { k % 2 == 0 ? "127.0.0.1" : "::1" }, nowMs: 0))
        }
        #expect(open.admit("x", source: { "192.0.2.1" }, nowMs: 0))
        #expect(!open.admit("y", source: { "192.0.2.1" }, nowMs: 0))
        #expect(
            NewDeviceBudget.isLoopback("::ffff:127.0.0.2")
                && !NewDeviceBudget.isLoopback("10.0.0.1"))
    }
}
