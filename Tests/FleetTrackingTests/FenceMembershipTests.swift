import Testing

@testable import FleetTracking

/// A membership's phase is stored packed: every phase reads back as it was
/// written, equality follows the phase, and one membership stays 40 bytes
/// (a dense fleet area keeps about 20 a device).
@Suite struct FenceMembershipTests {
    @Test func everyPhaseReadsBackAsWritten() {
        let phases: [FenceMembership.Phase] = [
            .entering(since: 1_700_000_000_123), .inside(since: -5),
            .exiting(enteredAt: 1_700_000_000_000, since: 1_700_000_060_000, fixes: 3),
            .exiting(enteredAt: .min, since: .max, fixes: 0),
        ]
        for p in phases {
            var m = FenceMembership(fence: "depot", phase: .inside(since: 0))
            m.phase = p
            #expect(m.phase == p)
            #expect(m == FenceMembership(fence: "depot", phase: p))
            #expect(m != FenceMembership(fence: "yard", phase: p))
        }
        #expect(
            FenceMembership(fence: "a", phase: .entering(since: 7))
                != FenceMembership(fence: "a", phase: .inside(since: 7)))
    }

    @Test func anExitsFixesSaturate() {
        let m = FenceMembership(fence: "a", phase: .exiting(enteredAt: 1, since: 2, fixes: 1 << 40))
        #expect(m.phase == .exiting(enteredAt: 1, since: 2, fixes: 65_535))
    }

    @Test func oneMembershipIsFortyBytes() {
        #expect(MemoryLayout<FenceMembership>.stride == 40)
    }
}
