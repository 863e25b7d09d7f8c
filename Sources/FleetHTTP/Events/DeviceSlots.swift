/// Devices numbered in the order they first came (slots 0, 1, 2, …), and
/// found again by name: the slot map `LivePositions` keeps a whole fleet
/// in. An open-addressing table of slots (linear probing, at most half
/// full, doubled when it would be more), 4 bytes a table entry: 8 to 16
/// bytes a device beside its name's 16, where a `[String: Int32]` took 27
/// to 53 (each of its buckets holds a key and a value, and it doubles at
/// three quarters full). One hash of the name a look-up, like the
/// dictionary's; names are compared only where the hashes' slots meet.
/// The names are the devices' own (a stranger's choice): the hash is
/// Swift's `Hasher`, seeded afresh in every process, so names cannot be
/// chosen ahead to pile up in one run of the table.
struct DeviceSlots {
    /// Each slot's device, in slot order.
    private(set) var devices: [String] = []
    /// Slot + 1 of the device hashed there, 0 for none; a power of two long.
    private var table: [Int32] = []

    /// Devices held.
    var count: Int { devices.count }

    /// The slot of `device`, if held.
    func slot(of device: String) -> Int? {
        guard !table.isEmpty else { return nil }
        let mask = table.count - 1
        var i = device.hashValue & mask
        while true {
            let s = Int(table[i])
            if s == 0 { return nil }
            if devices[s - 1] == device { return s - 1 }
            i = (i + 1) & mask
        }
    }

    /// Adds `device`, which is not held, as the next slot; returns it.
    mutating func add(_ device: String) -> Int {
        if 2 * (devices.count + 1) > table.count { grow() }
        devices.append(device)
        place(device, slot: devices.count - 1)
        return devices.count - 1
    }

    private mutating func place(_ device: String, slot: Int) {
        let mask = table.count - 1
        var i = device.hashValue & mask
        while table[i] != 0 { i = (i + 1) & mask }
        table[i] = Int32(slot + 1)
    }

    /// Doubles the table (at least 64 entries) and places every device again.
    private mutating func grow() {
        table = [Int32](repeating: 0, count: max(64, 2 * table.count))
        for (slot, device) in devices.enumerated() { place(device, slot: slot) }
    }
}
