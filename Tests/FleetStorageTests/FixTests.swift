import FleetModel
import Testing

/// A fix's optional numbers are held as plain ones and a bit each: what
/// goes in comes out, absent stays absent, and equal fixes compare equal
/// however they got there.
@Suite struct FixTests {
    @Test func optionalNumbersComeBackAsGivenAndAbsentOnesStayAbsent() {
        var f = Fix(
            device: "d", time: 1, lat: 48, lon: 11, speedKmh: 0, course: 359.5, altM: -12,
            accuracyM: 3.25, sats: 0, ignition: false, valid: false)
        #expect(f.speedKmh == 0 && f.course == 359.5 && f.altM == -12)
        #expect(f.accuracyM == 3.25 && f.sats == 0 && f.ignition == false && !f.valid)
        let bare = Fix(device: "d", time: 1, lat: 48, lon: 11)
        #expect(bare.speedKmh == nil && bare.course == nil && bare.altM == nil)
        #expect(bare.accuracyM == nil && bare.sats == nil && bare.ignition == nil)
        #expect(f != bare)
        f.speedKmh = nil
        f.course = nil
        #expect(f.speedKmh == nil && f.course == nil && f.altM == -12)
        f.altM = nil
        f.accuracyM = nil
        f.sats = nil
        f.ignition = nil
        f.valid = true
        // Set and cleared again: equal to one never set.
        #expect(f == bare)
        f.sats = 12
        #expect(f.sats == 12 && f.speedKmh == nil)
    }

    @Test func aPlainFixTakes96Bytes() {
        #expect(MemoryLayout<Fix>.stride == 96)
    }
}
