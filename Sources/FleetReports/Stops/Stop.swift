/// One stop of a vehicle: the time between the end of one of its trips and
/// the start of its next, where the first ended (`StopsReport`'s rules).
public struct Stop: Sendable, Equatable {
    public var device: String
    /// The vehicle's registered name, if any.
    public var name: String?
    /// When it stopped (the trip's end), Unix ms.
    public var startMs: Int64
    /// When it drove off (the next trip's start), Unix ms; for a stop not
    /// over (`ongoing`), its last fix heard so far (or `startMs`).
    public var endMs: Int64
    /// Where: the trip's last position, WGS 84 degrees.
    public var lat: Double
    public var lon: Double
    /// The fence it stopped in (the trip's end fence), if any.
    public var fence: String?
    /// Seconds of the stop with the ignition on and the engine idling (the
    /// `idle_start`/`idle_end` episodes within it); 0 where the device
    /// does not report ignition.
    public var idleS: Double
    /// True when no trip followed yet: the vehicle is still there.
    public var ongoing: Bool

    public init(
        device: String, name: String?, startMs: Int64, endMs: Int64, lat: Double, lon: Double,
        fence: String?, idleS: Double, ongoing: Bool
    ) {
        self.device = device
        self.name = name
        self.startMs = startMs
        self.endMs = endMs
        self.lat = lat
        self.lon = lon
        self.fence = fence
        self.idleS = idleS
        self.ongoing = ongoing
    }

    /// The stop's length, seconds.
    public var durationS: Double { Double(endMs - startMs) / 1000 }
}
