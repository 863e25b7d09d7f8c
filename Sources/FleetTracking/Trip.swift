/// A finished trip: from where the vehicle stood to where it came to rest.
public struct Trip: Sendable, Equatable {
    public var device: String
    /// Departure (the last fix at the start place) and arrival (the fix where
    /// the vehicle came to rest), with the odometer at each.
    public var start: Waypoint
    public var end: Waypoint
    /// Names of the fences containing the start and end positions (", "
    /// between several), nil when none.
    public var startFence: String?
    public var endFence: String?
    /// Ids of those fences (sorted, ", " between several), nil when none.
    public var startFenceId: String?
    public var endFenceId: String?
    /// Highest speed seen, km/h (reported, else computed between fixes).
    public var maxSpeedKmh: Double
    /// The driver identified on the trip (the key reported at its end, or
    /// just before it when the key came out with the ignition); nil when none.
    public var driver: String?

    public init(
        device: String, start: Waypoint, end: Waypoint, startFence: String?, endFence: String?,
        maxSpeedKmh: Double
    ) {
        self.device = device
        self.start = start
        self.end = end
        self.startFence = startFence
        self.endFence = endFence
        self.maxSpeedKmh = maxSpeedKmh
    }

    /// Gated distance driven, metres.
    public var distanceM: Double { max(0, end.odometerM - start.odometerM) }
    /// Seconds from departure to arrival.
    public var durationS: Double { Double(end.time - start.time) / 1000 }
    /// Distance over duration, km/h (0 for a zero-length trip).
    public var averageSpeedKmh: Double { durationS > 0 ? distanceM / durationS * 3.6 : 0 }
    /// Fixes accepted from departure to arrival, both included.
    public var fixes: Int64 { end.fixNo - start.fixNo + 1 }
}
