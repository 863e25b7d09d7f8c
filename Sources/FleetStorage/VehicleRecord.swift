/// A vehicle as the live map shows it: the device, its registered name,
/// whether it is silent, its odometer, and its newest accepted position.
public struct VehicleRecord: Sendable, Equatable {
    public var device: String
    public var name: String?
    /// `device_silent` raised and no fix since (as of the last checkpoint).
    public var silent: Bool
    /// Gated odometer, metres (as of the last checkpoint).
    public var odometerM: Double
    public var position: PositionRecord
    /// The ignition as the device last reported it, and its driver's key
    /// (Teltonika iButton), as of the last checkpoint; nil when unknown.
    public var ignition: Bool?
    public var driver: String?
    /// The vehicle's group, or nil.
    public var group: String?

    public init(
        device: String, name: String?, silent: Bool, odometerM: Double, position: PositionRecord
    ) {
        self.device = device
        self.name = name
        self.silent = silent
        self.odometerM = odometerM
        self.position = position
    }
}

/// A vehicle's JSON (`GET /api/v1/positions/latest`; add fields, never
/// rename): `device`, `name`, `silent`, `odometer_m` (0.1 m) and
/// `position` (a position object as `/positions` gives it); `ignition` and
/// `driver` (added later; null when unknown); `group` (added later; null
/// when in none).
extension VehicleRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case device, name, silent, odometerM = "odometer_m", position, ignition, driver, group
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try c.decode(String.self, forKey: .device),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            silent: try c.decode(Bool.self, forKey: .silent),
            odometerM: try c.decode(Double.self, forKey: .odometerM),
            position: try c.decode(PositionRecord.self, forKey: .position))
        ignition = try c.decodeIfPresent(Bool.self, forKey: .ignition)
        driver = try c.decodeIfPresent(String.self, forKey: .driver)
        group = try c.decodeIfPresent(String.self, forKey: .group)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(name, forKey: .name)
        try c.encode(silent, forKey: .silent)
        try c.encode(RecordCoding.tenth(odometerM), forKey: .odometerM)
        try c.encode(position, forKey: .position)
        try c.encode(ignition, forKey: .ignition)
        try c.encode(driver, forKey: .driver)
        try c.encode(group, forKey: .group)
    }
}
