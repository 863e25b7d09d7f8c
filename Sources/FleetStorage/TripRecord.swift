import FleetJSON
import FleetProtocols

/// A stored trip, as readers see it.
public struct TripRecord: Sendable, Equatable {
    public var id: Int64
    public var device: String
    /// The registered vehicle's name, when the device is registered with one.
    public var vehicle: String?
    /// Unix milliseconds.
    public var startTime: Int64
    public var endTime: Int64
    public var startLat: Double
    public var startLon: Double
    public var endLat: Double
    public var endLon: Double
    /// Names of the fences at the start and end (", " between several).
    public var startFence: String?
    public var endFence: String?
    public var distanceM: Double
    public var maxSpeedKmh: Double
    public var fixes: Int
    /// The device's odometer at the start and end, metres.
    public var startOdometerM: Double
    public var endOdometerM: Double

    /// Seconds from departure to arrival.
    public var durationS: Double { Double(endTime - startTime) / 1000 }
    /// Distance over duration, km/h.
    public var averageSpeedKmh: Double { durationS > 0 ? distanceM / durationS * 3.6 : 0 }

    /// The trip as one JSON object (no newline). Field names are a contract
    /// (add, never rename): `id`, `device`, `vehicle`, `start_time`, `end_time`
    /// (RFC 3339 UTC), `start_lat`, `start_lon`, `end_lat`, `end_lon`,
    /// `start_fence`, `end_fence`, `distance_m`, `duration_s`, `max_speed_kmh`,
    /// `avg_speed_kmh`, `fixes`, `start_odometer_m`, `end_odometer_m`.
    public var jsonLine: String {
        func num(_ v: Double) -> String { JSONValue.number(v).jsonText }
        func round1(_ v: Double) -> String { num((v * 10).rounded() / 10) }
        func text(_ s: String?) -> String { s.map(JSONValue.quote) ?? "null" }
        let fields: [(String, String)] = [
            ("id", String(id)), ("device", JSONValue.quote(device)), ("vehicle", text(vehicle)),
            ("start_time", JSONValue.quote(RFC3339.format(millis: startTime))),
            ("end_time", JSONValue.quote(RFC3339.format(millis: endTime))),
            ("start_lat", num(startLat)), ("start_lon", num(startLon)),
            ("end_lat", num(endLat)), ("end_lon", num(endLon)),
            ("start_fence", text(startFence)), ("end_fence", text(endFence)),
            ("distance_m", round1(distanceM)), ("duration_s", num(durationS)),
            ("max_speed_kmh", round1(maxSpeedKmh)), ("avg_speed_kmh", round1(averageSpeedKmh)),
            ("fixes", String(fixes)), ("start_odometer_m", round1(startOdometerM)),
            ("end_odometer_m", round1(endOdometerM)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    public init(
        id: Int64, device: String, vehicle: String?, startTime: Int64, endTime: Int64,
        startLat: Double, startLon: Double, endLat: Double, endLon: Double, startFence: String?,
        endFence: String?, distanceM: Double, maxSpeedKmh: Double, fixes: Int,
        startOdometerM: Double, endOdometerM: Double
    ) {
        self.id = id
        self.device = device
        self.vehicle = vehicle
        self.startTime = startTime
        self.endTime = endTime
        self.startLat = startLat
        self.startLon = startLon
        self.endLat = endLat
        self.endLon = endLon
        self.startFence = startFence
        self.endFence = endFence
        self.distanceM = distanceM
        self.maxSpeedKmh = maxSpeedKmh
        self.fixes = fixes
        self.startOdometerM = startOdometerM
        self.endOdometerM = endOdometerM
    }
}
