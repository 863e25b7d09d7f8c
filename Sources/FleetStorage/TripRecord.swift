import FleetTracking

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
    /// Ids of those fences (sorted, ", " between several); nil when none,
    /// and for trips stored before ids were kept.
    public var startFenceId: String?
    public var endFenceId: String?
    /// Metres driven: the distance tracked, plus `lateDetourM`.
    public var distanceM: Double
    /// Of `distanceM`, the metres the trip's `late` fixes add (the way
    /// through them less the straight way they were skipped on;
    /// `LateDetour`), recomputed whenever such a fix is stored; 0 for a
    /// trip under way.
    public var lateDetourM: Double
    public var maxSpeedKmh: Double
    public var fixes: Int
    /// The device's odometer at the start and end, metres.
    public var startOdometerM: Double
    public var endOdometerM: Double
    /// The driver identified on the trip (a Teltonika iButton key, 16
    /// hexadecimal digits); nil when none, and for trips stored before
    /// drivers were kept.
    public var driver: String?
    /// A trip under way (the API's `/trips` only): the end is the newest
    /// accepted position, `endFence` is nil and `id` is 0 (`null` in JSON).
    public var open: Bool

    /// Seconds from departure to arrival.
    public var durationS: Double { Double(endTime - startTime) / 1000 }
    /// Distance over duration, km/h.
    public var averageSpeedKmh: Double { durationS > 0 ? distanceM / durationS * 3.6 : 0 }

    /// The trip as one JSON object (no newline): its `Codable` form.
    public var jsonLine: String { RecordCoding.line(self) }

    public init(
        id: Int64, device: String, vehicle: String?, startTime: Int64, endTime: Int64,
        startLat: Double, startLon: Double, endLat: Double, endLon: Double, startFence: String?,
        endFence: String?, distanceM: Double, maxSpeedKmh: Double, fixes: Int,
        startOdometerM: Double, endOdometerM: Double, open: Bool = false,
        startFenceId: String? = nil, endFenceId: String? = nil, lateDetourM: Double = 0,
        driver: String? = nil
    ) {
        self.driver = driver
        self.lateDetourM = lateDetourM
        self.startFenceId = startFenceId
        self.endFenceId = endFenceId
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
        self.open = open
    }
}

extension TripRecord {
    /// A trip under way as a record: `open` set, no id (0, `null` in JSON),
    /// no end fence; the end is its newest accepted position.
    public init(open t: OpenTrip, vehicle: String? = nil) {
        self.init(
            id: 0, device: t.device, vehicle: vehicle, startTime: t.start.time,
            endTime: t.last.time, startLat: t.start.lat, startLon: t.start.lon,
            endLat: t.last.lat, endLon: t.last.lon, startFence: t.startFence, endFence: nil,
            distanceM: t.distanceM, maxSpeedKmh: t.maxSpeedKmh, fixes: Int(t.fixes),
            startOdometerM: t.start.odometerM, endOdometerM: t.last.odometerM, open: true,
            startFenceId: t.startFenceId)
    }
}
