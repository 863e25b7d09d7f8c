import FleetModel
import FleetStorage
import Foundation

/// The usage report's JSON, the contract `fleetctl report usage --json` and
/// `GET /api/v1/reports/usage` share (add fields, never rename): `from`,
/// `to`, `generated_at` (RFC 3339 UTC), `vehicles` (rows) and `totals` (a
/// row with `device` and `name` null). A row: `device`, `name`,
/// `distance_m`, `driving_s`, `trips`, `parked_s`, `max_speed_kmh`,
/// `overspeed_episodes`, `overspeed_s`, `fence_visits` (`fence`,
/// `visits`, `inside_s`), `first_fix`, `last_fix` (RFC 3339 or null),
/// `fixes`, `idle_episodes`, `idle_s`. `drivers` (added later): per
/// driver's key, `driver`, `trips`, `distance_m`, `driving_s`, `devices`.
extension UsageReport: Codable {
    enum CodingKeys: String, CodingKey {
        case from, to, generatedAt = "generated_at", vehicles, totals, drivers
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fromMs: try RecordCoding.millis(c, .from), toMs: try RecordCoding.millis(c, .to),
            generatedMs: try RecordCoding.millis(c, .generatedAt),
            vehicles: try c.decode([UsageRow].self, forKey: .vehicles),
            totals: try c.decode(UsageRow.self, forKey: .totals),
            drivers: try c.decodeIfPresent([DriverUsage].self, forKey: .drivers) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(RFC3339.format(millis: fromMs), forKey: .from)
        try c.encode(RFC3339.format(millis: toMs), forKey: .to)
        try c.encode(RFC3339.format(millis: generatedMs), forKey: .generatedAt)
        try c.encode(vehicles, forKey: .vehicles)
        try c.encode(totals, forKey: .totals)
        try c.encode(drivers, forKey: .drivers)
    }

    /// The report as one JSON object (no newline), members sorted.
    public var jsonLine: String { RecordCoding.line(self) }
}

extension UsageRow: Codable {
    enum CodingKeys: String, CodingKey {
        case device, name, distanceM = "distance_m", drivingS = "driving_s", trips
        case parkedS = "parked_s", maxSpeedKmh = "max_speed_kmh"
        case overspeedEpisodes = "overspeed_episodes", overspeedS = "overspeed_s"
        case fenceVisits = "fence_visits", firstFix = "first_fix", lastFix = "last_fix", fixes
        case idleEpisodes = "idle_episodes", idleS = "idle_s"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try c.decodeIfPresent(String.self, forKey: .device),
            name: try c.decodeIfPresent(String.self, forKey: .name))
        distanceM = try c.decode(Double.self, forKey: .distanceM)
        drivingS = try c.decode(Double.self, forKey: .drivingS)
        trips = try c.decode(Int.self, forKey: .trips)
        parkedS = try c.decode(Double.self, forKey: .parkedS)
        maxSpeedKmh = try c.decode(Double.self, forKey: .maxSpeedKmh)
        overspeedEpisodes = try c.decode(Int.self, forKey: .overspeedEpisodes)
        overspeedS = try c.decode(Double.self, forKey: .overspeedS)
        fenceVisits = try c.decode([FenceVisits].self, forKey: .fenceVisits)
        firstFixMs =
            try c.decodeNil(forKey: .firstFix) ? nil : try RecordCoding.millis(c, .firstFix)
        lastFixMs = try c.decodeNil(forKey: .lastFix) ? nil : try RecordCoding.millis(c, .lastFix)
        fixes = try c.decode(Int.self, forKey: .fixes)
        idleEpisodes = try c.decodeIfPresent(Int.self, forKey: .idleEpisodes) ?? 0
        idleS = try c.decodeIfPresent(Double.self, forKey: .idleS) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encode(name, forKey: .name)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(drivingS, forKey: .drivingS)
        try c.encode(trips, forKey: .trips)
        try c.encode(parkedS, forKey: .parkedS)
        try c.encode(maxSpeedKmh, forKey: .maxSpeedKmh)
        try c.encode(overspeedEpisodes, forKey: .overspeedEpisodes)
        try c.encode(overspeedS, forKey: .overspeedS)
        try c.encode(fenceVisits, forKey: .fenceVisits)
        try c.encode(firstFixMs.map { RFC3339.format(millis: $0) }, forKey: .firstFix)
        try c.encode(lastFixMs.map { RFC3339.format(millis: $0) }, forKey: .lastFix)
        try c.encode(fixes, forKey: .fixes)
        try c.encode(idleEpisodes, forKey: .idleEpisodes)
        try c.encode(idleS, forKey: .idleS)
    }
}
