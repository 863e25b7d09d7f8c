import FleetTracking
import Testing

@testable import FleetDaemon

/// A device's entry keeps its state and rewind out of line, with value
/// semantics: what one copy changes, another does not see.
@Suite struct TrackedDeviceTests {
    static func state(_ t: Int64) -> DeviceState {
        DeviceState(lastTime: t, lat: 48.1, lon: 11.5, fences: [])
    }

    @Test func stateAndRewindChangeInPlaceAndCopiesStayApart() {
        var entry = TrackedDevice(heardMs: 5)
        #expect(entry.state == nil && entry.rewind == nil)
        entry.state = Self.state(1000)
        #expect(entry.state?.lastTime == 1000)

        let copy = entry
        let seen = entry.withStateAndRewind { state, rewind in
            #expect(state?.lastTime == 1000 && rewind == nil)
            state!.lastTime = 2000
            rewind = Rewind(resuming: state!)
            return 7
        }
        #expect(seen == 7)
        #expect(entry.state?.lastTime == 2000)
        #expect(entry.rewind != nil)
        #expect(copy.state?.lastTime == 1000, "a copy keeps its own state")
        #expect(copy.rewind == nil)

        // The rewind kept across calls, then dropped.
        entry.withStateAndRewind { _, rewind in #expect(rewind != nil) }
        entry.withStateAndRewind { _, rewind in rewind = nil }
        #expect(entry.rewind == nil && entry.state?.lastTime == 2000)
        entry.state = nil
        #expect(entry.state == nil)
        #expect(entry.heardMs == 5)
    }

    /// What the silence check reads inline follows the state through every
    /// way it is changed: set, changed in place, dropped.
    @Test func theSilenceCheckSeesTheStateItDoesNotCopy() {
        var entry = TrackedDevice()
        #expect(!entry.hasState && !entry.isSilent)
        var silent = Self.state(1000)
        silent.silent = true
        entry = TrackedDevice(state: silent)
        #expect(entry.hasState && entry.isSilent)
        entry.withStateAndRewind { state, _ in state!.silent = false }
        #expect(entry.hasState && !entry.isSilent)
        entry.withStateAndRewind { state, _ in state!.silent = true }
        #expect(entry.isSilent)
        entry.state = Self.state(2000)
        #expect(entry.hasState && !entry.isSilent)
        entry.withStateAndRewind { state, _ in state = nil }
        #expect(!entry.hasState && !entry.isSilent)
        entry.state = silent
        #expect(entry.isSilent)
        entry.state = nil
        #expect(!entry.hasState && !entry.isSilent)
    }
}
