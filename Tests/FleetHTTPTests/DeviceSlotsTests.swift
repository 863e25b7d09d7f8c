import Testing

@testable import FleetHTTP

/// `DeviceSlots`, the live map's slot index, against a dictionary: every
/// device added is found at the slot it was given, in the order added,
/// through every doubling of the table; a device never added is not found.
@Suite struct DeviceSlotsTests {
    @Test func anEmptyIndexFindsNothing() {
        let slots = DeviceSlots()
        #expect(slots.count == 0)
        #expect(slots.slot(of: "truck-1") == nil)
        #expect(slots.slot(of: "") == nil)
    }

    @Test func everyDeviceIsFoundAtItsSlotThroughEveryGrowth() {
        var slots = DeviceSlots()
        var oracle: [String: Int] = [:]
        var rng = SystemRandomNumberGenerator()
        // Short names (held inline), long names (held on the heap), and
        // names that differ in one character, in a random order.
        var names = (0..<3000).map { "v\($0)" }
        names += (0..<3000).map { "a-device-with-a-rather-long-name-\($0)" }
        names += (0..<256).map { "x" + String(UnicodeScalar(UInt8($0 % 94 + 33))) + "\($0 / 94)" }
        names.shuffle(using: &rng)
        for (i, name) in names.enumerated() where oracle[name] == nil {
            #expect(slots.slot(of: name) == nil)
            let slot = slots.add(name)
            #expect(slot == oracle.count)
            oracle[name] = slot
            // Every so often, everything added so far is still where it was.
            if i % 997 == 0 {
                for (n, s) in oracle { #expect(slots.slot(of: n) == s) }
            }
        }
        #expect(slots.count == oracle.count)
        for (name, slot) in oracle {
            #expect(slots.slot(of: name) == slot)
            #expect(slots.devices[slot] == name)
        }
        for k in 0..<500 { #expect(slots.slot(of: "absent-\(k)") == nil) }
        #expect(slots.slot(of: "v") == nil)
    }
}
