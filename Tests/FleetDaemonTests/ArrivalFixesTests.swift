import FleetModel
import Testing

@testable import FleetDaemon

@Suite struct ArrivalFixesTests {
    func fix(_ device: String, _ t: Int64) -> Fix { Fix(device: device, time: t, lat: 48, lon: 11) }

    @Test func holdsNoneOneOrManyInOrder() {
        for n in [0, 1, 2, 7] {
            let fixes = (0..<n).map { fix("d\($0)", Int64($0)) }
            let a = ArrivalFixes(fixes)
            #expect(a.count == n)
            #expect(a.isEmpty == (n == 0))
            #expect(Array(a) == fixes)
            var out = [fix("before", -1)]
            a.append(to: &out)
            #expect(out == [fix("before", -1)] + fixes)
        }
    }

    /// A fix changed in place (the door drops device keys so) stays
    /// changed, whether it is the lone one or one of many, and a copy
    /// taken before is not touched.
    @Test func aFixChangedInPlaceStaysChangedAndCopiesAreNot() {
        for n in [1, 3] {
            var a = ArrivalFixes((0..<n).map { fix("d\($0)", Int64($0)) })
            let before = a
            for i in a.indices { a[i].lat = 50 }
            #expect(a.allSatisfy { $0.lat == 50 })
            #expect(before.allSatisfy { $0.lat == 48 })
        }
    }

    /// The lone fix is held inline: an arrival waiting in the queue's ring
    /// owns no block of its own.
    @Test func takesNoMoreRoomThanAFix() {
        #expect(MemoryLayout<ArrivalFixes>.size == MemoryLayout<Fix>.size)
        #expect(MemoryLayout<Arrival>.stride <= 176)
    }
}
