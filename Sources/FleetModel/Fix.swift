/// One GPS fix as a decoder produced it, before screening and tracking.
///
/// Units are fixed whatever the wire format: degrees, km/h, metres, UTC
/// milliseconds since 1970-01-01T00:00:00Z.
public struct Fix: Sendable, Equatable {
    /// The device's identity (JSON `device`, a Teltonika IMEI, an NMEA device id).
    public var device: String
    /// Fix time, milliseconds since the Unix epoch (UTC).
    public var time: Int64
    /// Latitude and longitude in degrees (WGS 84).
    public var lat: Double
    public var lon: Double
    /// Ground speed in km/h, when the device sent it.
    public var speedKmh: Double?
    /// Course over ground, degrees clockwise from true north.
    public var course: Double?
    /// Altitude above mean sea level, metres.
    public var altM: Double?
    /// Horizontal accuracy, metres.
    public var accuracyM: Double?
    /// Satellites in use.
    public var sats: Int?
    /// Ignition state, when known.
    public var ignition: Bool?
    /// False when the device itself says it had no GNSS fix; such a fix is
    /// stored but never moves a vehicle.
    public var valid: Bool
    /// Device extras (Teltonika IO elements, NMEA quality); nil for plain fixes.
    public var extra: FixExtra? {
        get { extraBox?.value }
        set { extraBox = newValue.map(Frozen.init) }
    }
    /// The extras in a box of their own: a fix without them takes about 120
    /// bytes instead of 350 wherever fixes wait in numbers (the door's
    /// queue, a group commit, a device's rewind).
    private var extraBox: Frozen<FixExtra>?

    public init(
        device: String, time: Int64, lat: Double, lon: Double, speedKmh: Double? = nil,
        course: Double? = nil, altM: Double? = nil, accuracyM: Double? = nil, sats: Int? = nil,
        ignition: Bool? = nil, valid: Bool = true, extra: FixExtra? = nil
    ) {
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.speedKmh = speedKmh
        self.course = course
        self.altM = altM
        self.accuracyM = accuracyM
        self.sats = sats
        self.ignition = ignition
        self.valid = valid
        self.extraBox = extra.map(Frozen.init)
    }
}
