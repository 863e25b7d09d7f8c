/// A stored position, as readers see it.
public struct PositionRecord: Sendable, Equatable {
    public var device: String
    /// Unix milliseconds.
    public var time: Int64
    public var lat: Double
    public var lon: Double
    public var speedKmh: Double?
    public var course: Double?
    public var altM: Double?
    public var accuracyM: Double?
    public var sats: Int?
    public var ignition: Bool?
    public var valid: Bool
    /// `FixDisposition` raw value: 0 accepted, 2 late, 3 invalid.
    public var disposition: Int
    public var priority: Int?
    public var movement: Bool?
    public var gsmSignal: Int?
    public var externalVoltageMv: Int?
    public var odometerM: Int?
    public var gnssStatus: Int?
    public var fixQuality: Int?
    public var hdop: Double?
    /// Teltonika IO section as sent, and its codec.
    public var ioRaw: [UInt8]?
    public var ioCodec: Int?
}
