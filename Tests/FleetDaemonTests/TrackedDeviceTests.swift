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
        var (state, rewind) = entry.takeStateAndRewind()
        #expect(state?.lastTime == 1000 && rewind == nil)
        state!.lastTime = 2000
        rewind = Rewind(resuming: state!)
        entry.restore(state: state, rewind: rewind)
        #expect(entry.state?.lastTime == 2000)
        #expect(entry.rewind != nil)
        #expect(copy.state?.lastTime == 1000, "a copy keeps its own state")
        #expect(copy.rewind == nil)

        // The rewind kept across calls, then dropped.
        var taken = entry.takeStateAndRewind()
        #expect(taken.rewind != nil)
        entry.restore(state: taken.state, rewind: taken.rewind)
        taken = entry.takeStateAndRewind()
        entry.restore(state: taken.state, rewind: nil)
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
        func change(_ body: (inout DeviceState?) -> Void) {
            var (state, rewind) = entry.takeStateAndRewind()
            body(&state)
            entry.restore(state: state, rewind: rewind)
        }
        change { $0!.silent = false }
        #expect(entry.hasState && !entry.isSilent)
        change { $0!.silent = true }
        #expect(entry.isSilent)
        entry.state = Self.state(2000)
        #expect(entry.hasState && !entry.isSilent)
        change { $0 = nil }
        #expect(!entry.hasState && !entry.isSilent)
        entry.state = silent
        #expect(entry.isSilent)
        entry.state = nil
        #expect(!entry.hasState && !entry.isSilent)
    }

    /// The state is moved out of an entry's own box, not copied (a copy
    /// would share the state's arrays with the box, and every change to
    /// them would copy them); an entry that shares its box with a copy
    /// gives a copy and leaves the other's state alone.
    @Test func takingMovesTheStateOutOfTheEntrysOwnBox() {
        var entry = TrackedDevice(
            state: Self.state(1000), rewind: Rewind(resuming: Self.state(900)))
        var (state, rewind) = entry.takeStateAndRewind()
        #expect(state?.lastTime == 1000 && rewind != nil)
        #expect(entry.state == nil && entry.rewind == nil, "moved out, the boxes empty")
        state!.lastTime = 1500
        entry.restore(state: state, rewind: rewind)
        #expect(entry.state?.lastTime == 1500 && entry.rewind != nil)

        let copy = entry
        (state, rewind) = entry.takeStateAndRewind()
        #expect(state?.lastTime == 1500)
        #expect(copy.state?.lastTime == 1500, "a shared box gives a copy and keeps its value")
        state!.lastTime = 1600
        entry.restore(state: state, rewind: rewind)
        #expect(entry.state?.lastTime == 1600)
        #expect(copy.state?.lastTime == 1500)
    }
}
