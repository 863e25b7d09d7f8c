/// One GPS fix as a decoder produced it, before screening and tracking.
///
/// Units are fixed whatever the wire format: degrees, km/h, metres, UTC
/// milliseconds since 1970-01-01T00:00:00Z. 96 bytes (`FixTests`).
public struct Fix: Sendable, Equatable {
    /// The device's identity (JSON `device`, a Teltonika IMEI, an NMEA device id).
    public var device: String
    /// Fix time, milliseconds since the Unix epoch (UTC).
    public var time: Int64
    /// Latitude and longitude in degrees (WGS 84).
    public var lat: Double
    public var lon: Double
    /// Ground speed in km/h, when the device sent it.
    public var speedKmh: Double? {
        get { has(Self.hasSpeed) ? speedValue : nil }
        set { (speedValue, present) = Self.store(newValue, Self.hasSpeed, in: present) }
    }
    /// Course over ground, degrees clockwise from true north.
    public var course: Double? {
        get { has(Self.hasCourse) ? courseValue : nil }
        set { (courseValue, present) = Self.store(newValue, Self.hasCourse, in: present) }
    }
    /// Altitude above mean sea level, metres.
    public var altM: Double? {
        get { has(Self.hasAlt) ? altValue : nil }
        set { (altValue, present) = Self.store(newValue, Self.hasAlt, in: present) }
    }
    /// Horizontal accuracy, metres.
    public var accuracyM: Double? {
        get { has(Self.hasAccuracy) ? accuracyValue : nil }
        set { (accuracyValue, present) = Self.store(newValue, Self.hasAccuracy, in: present) }
    }
    /// Satellites in use.
    public var sats: Int? {
        get { has(Self.hasSats) ? satsValue : nil }
        set { (satsValue, present) = Self.store(newValue, Self.hasSats, in: present) }
    }
    /// Device extras (Teltonika IO elements, NMEA quality); nil for plain fixes.
    public var extra: FixExtra? {
        get { extraBox?.value }
        set { extraBox = newValue.map(Frozen.init) }
    }
    /// The extras in a box of their own: a fix without them takes 96
    /// bytes instead of about 320 wherever fixes wait in numbers (the door's
    /// queue, a group commit, a device's rewind).
    private var extraBox: Frozen<FixExtra>?

    // The optional numbers are stored as plain ones and a bit each in
    // `present` (an absent one stored as 0, so that equal fixes compare
    // equal): an optional Double takes 16 bytes in a struct, and a fix 128
    // bytes instead of 96 (the inbound queue holds up to 150 000 of them).
    private var speedValue: Double = 0
    private var courseValue: Double = 0
    private var altValue: Double = 0
    private var accuracyValue: Double = 0
    private var satsValue: Int = 0
    private var present: UInt8 = 0
    // (Declared here, after the words, so that a fix packs into 96 bytes.)
    /// Ignition state, when known.
    public var ignition: Bool?
    /// False when the device itself says it had no GNSS fix; such a fix is
    /// stored but never moves a vehicle.
    public var valid: Bool
    private static let hasSpeed: UInt8 = 1
    private static let hasCourse: UInt8 = 2
    private static let hasAlt: UInt8 = 4
    private static let hasAccuracy: UInt8 = 8
    private static let hasSats: UInt8 = 16

    @inline(__always)
    private func has(_ bit: UInt8) -> Bool { present & bit != 0 }

    @inline(__always)
    private static func store<T: Numeric>(_ value: T?, _ bit: UInt8, in present: UInt8) -> (
        T, UInt8
    ) {
        if let value { return (value, present | bit) }
        return (0, present & ~bit)
    }

    public init(
        device: String, time: Int64, lat: Double, lon: Double, speedKmh: Double? = nil,
        course: Double? = nil, altM: Double? = nil, accuracyM: Double? = nil, sats: Int? = nil,
        ignition: Bool? = nil, valid: Bool = true, extra: FixExtra? = nil
    ) {
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.ignition = ignition
        self.valid = valid
        self.extraBox = extra.map(Frozen.init)
        self.speedKmh = speedKmh
        self.course = course
        self.altM = altM
        self.accuracyM = accuracyM
        self.sats = sats
    }
}
