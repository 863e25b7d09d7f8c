/// A device's JSON, the contract `fleetctl devices --json` and the API
/// share (add fields, never rename): `device`, `name`, `plate`, `vin`,
/// `registered`, `positions`, `odometer_m` (0.1 m), `silent`, `last_fix`
/// (RFC 3339 UTC or null); `group` (added later; null when in none).
extension DeviceRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case ident = "device", name, plate, vin, registered, positions
        case odometerM = "odometer_m", silent, lastFix = "last_fix", group
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            ident: try c.decode(String.self, forKey: .ident),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            plate: try c.decodeIfPresent(String.self, forKey: .plate),
            vin: try c.decodeIfPresent(String.self, forKey: .vin),
            registered: try c.decode(Bool.self, forKey: .registered),
            positions: try c.decode(Int.self, forKey: .positions),
            lastFix: try c.decodeNil(forKey: .lastFix) ? nil : try RecordCoding.millis(c, .lastFix),
            odometerM: try c.decode(Double.self, forKey: .odometerM),
            silent: try c.decode(Bool.self, forKey: .silent))
        group = try c.decodeIfPresent(String.self, forKey: .group)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ident, forKey: .ident)
        try c.encode(name, forKey: .name)
        try c.encode(plate, forKey: .plate)
        try c.encode(vin, forKey: .vin)
        try c.encode(registered, forKey: .registered)
        try c.encode(positions, forKey: .positions)
        try c.encode(RecordCoding.tenth(odometerM), forKey: .odometerM)
        try c.encode(silent, forKey: .silent)
        try c.encode(lastFix.map(RecordCoding.time), forKey: .lastFix)
        try c.encode(group, forKey: .group)
    }
}
