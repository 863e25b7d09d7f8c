import FleetModel
import FleetStorage

/// The stops report's JSON, the contract `fleetctl report stops --json` and
/// `GET /api/v1/reports/stops` share (add fields, never rename): `from`,
/// `to`, `generated_at` (RFC 3339 UTC), `min_s`, `stops`. A stop: `device`,
/// `name`, `start`, `end` (RFC 3339), `duration_s`, `lat`, `lon`, `fence`
/// (or null), `idle_s`, `ongoing`.
extension StopsReport: Codable {
    enum CodingKeys: String, CodingKey {
        case from, to, generatedAt = "generated_at", minS = "min_s", stops
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fromMs: try RecordCoding.millis(c, .from), toMs: try RecordCoding.millis(c, .to),
            generatedMs: try RecordCoding.millis(c, .generatedAt),
            minS: try c.decode(Double.self, forKey: .minS),
            stops: try c.decode([Stop].self, forKey: .stops))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(RFC3339.format(millis: fromMs), forKey: .from)
        try c.encode(RFC3339.format(millis: toMs), forKey: .to)
        try c.encode(RFC3339.format(millis: generatedMs), forKey: .generatedAt)
        try c.encode(minS, forKey: .minS)
        try c.encode(stops, forKey: .stops)
    }

    /// The report as one JSON object (no newline), members sorted.
    public var jsonLine: String { RecordCoding.line(self) }
}

extension Stop: Codable {
    enum CodingKeys: String, CodingKey {
        case device, name, start, end, durationS = "duration_s", lat, lon, fence
        case idleS = "idle_s", ongoing
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try c.decode(String.self, forKey: .device),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            startMs: try RecordCoding.millis(c, .start), endMs: try RecordCoding.millis(c, .end),
            lat: try c.decode(Double.self, forKey: .lat),
            lon: try c.decode(Double.self, forKey: .lon),
            fence: try c.decodeIfPresent(String.self, forKey: .fence),
            idleS: try c.decode(Double.self, forKey: .idleS),
            ongoing: try c.decode(Bool.self, forKey: .ongoing))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(name, forKey: .name)
        try c.encode(RFC3339.format(millis: startMs), forKey: .start)
        try c.encode(RFC3339.format(millis: endMs), forKey: .end)
        try c.encode(durationS, forKey: .durationS)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(fence, forKey: .fence)
        try c.encode(idleS, forKey: .idleS)
        try c.encode(ongoing, forKey: .ongoing)
    }
}
