/// What some devices send beside a position: kept with it, and the
/// well-known values named.
public struct FixExtra: Sendable, Equatable {
    /// Teltonika record priority: 0 low, 1 high, 2 panic.
    public var priority: Int?
    /// Teltonika IO 240 "movement".
    public var movement: Bool?
    /// Teltonika IO 21 "GSM signal", 0–5.
    public var gsmSignal: Int?
    /// Teltonika IO 66 "external voltage", millivolts.
    public var externalVoltageMv: Int?
    /// Teltonika IO 16 "total odometer", metres.
    public var odometerM: Int?
    /// Teltonika IO 69 "GNSS status" (0 off, 1 on with fix, 2 on without fix, 3 sleep, …).
    public var gnssStatus: Int?
    /// NMEA GGA fix quality; HDOP (GGA, or Teltonika IO 182 in tenths).
    public var fixQuality: Int?
    public var hdop: Double?
    /// Every Teltonika IO element as sent: the record's raw IO section and its
    /// codec (`TeltonikaIO.json` renders it as {"239":1,"66":12345,…}).
    public var ioRaw: [UInt8]?
    public var ioCodec: UInt8 = 0
    /// Battery level, percent 0–100 (OsmAnd `batt`, `battery.level` × 100).
    public var batteryPercent: Double?
    /// Charging (OsmAnd `charge`, `battery.is_charging`).
    public var charging: Bool?
    /// An alarm the device raised with this fix, as a snake_case kind
    /// (`sos`, `power_cut`, `vibration`, `low_battery`, `crash`,
    /// `harsh_braking`, …): the GT06 alarm byte, Teltonika IO 247 and
    /// IO 253, an OsmAnd `alarm` parameter. nil: none.
    public var alarm: String?
    /// The Teltonika iButton (IO 78) read on this fix: the driver's key as
    /// 16 hexadecimal digits, most significant byte first; "" when the
    /// device reports no key (the value 0); nil when it does not report one.
    public var driver: String?
    /// Other keys a phone sent, as one JSON object text (`{"alarm":"sos",…}`).
    public var attributes: String?
    /// The device's key as the sender gave it (JSON `key`, OsmAnd `key`),
    /// checked at the door against `devices.policy_file` and removed there:
    /// never stored, never shown.
    public var deviceKey: String?

    public init() {}

    /// `text` as an alarm kind: lower case, letters, digits and `_` only
    /// (others become `_`), at most 32 characters; nil when empty.
    public static func alarmKind(_ text: some StringProtocol) -> String? {
        var out = ""
        for c in text.lowercased().unicodeScalars.prefix(32) {
            out.unicodeScalars.append(
                ("a"..."z").contains(c) || ("0"..."9").contains(c) ? c : "_")
        }
        return out.isEmpty ? nil : out
    }
}
