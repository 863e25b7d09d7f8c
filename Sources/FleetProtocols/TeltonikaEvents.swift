import FleetModel

/// The Teltonika IO elements that are events rather than readings: alarms
/// and the driver's iButton. Their meaning is per device family; these are
/// the FMB family's, from Teltonika's AVL ID tables
/// (https://wiki.teltonika-gps.com/view/FMB_AVL_ID).
extension TeltonikaDecoder {
    /// The alarm kind of IO element `io` with `value`, or nil when it is not
    /// one: 247 crash detection (any non-zero code), 253 green driving
    /// (1 harsh acceleration, 2 harsh braking, 3 harsh cornering), 246
    /// towing, 252 unplug (external power cut), 249 jamming.
    static func alarm(io: Int, value: UInt64) -> String? {
        guard value != 0 else { return nil }
        switch io {
        case 247: return "crash"
        case 253:
            switch value {
            case 1: return "harsh_acceleration"
            case 2: return "harsh_braking"
            case 3: return "harsh_cornering"
            default: return nil
            }
        case 246: return "towing"
        case 252: return "power_cut"
        case 249: return "jamming"
        default: return nil
        }
    }

    /// Which alarm a record carrying several reports (the higher, the more
    /// urgent): a crash before anything else.
    static func alarmRank(_ kind: String) -> Int {
        switch kind {
        case "crash": 4
        case "power_cut", "towing": 3
        case "jamming": 2
        default: 1
        }
    }

    /// `value` as 16 upper-case hexadecimal digits (an iButton key).
    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}
