/// One vehicle's usage in the period (or the fleet's totals: `device` nil).
public struct UsageRow: Sendable, Equatable {
    public var device: String?
    public var name: String?
    /// Distance driven on trips, metres.
    public var distanceM: Double = 0
    /// Time on trips, seconds.
    public var drivingS: Double = 0
    public var trips = 0
    /// Time not on trips from the first fix of the period on, seconds.
    public var parkedS: Double = 0
    /// Highest speed reported by an accepted fix, km/h (0 without one).
    public var maxSpeedKmh: Double = 0
    /// Overspeed episodes that began in the period, and the time over the
    /// limit in the period, seconds.
    public var overspeedEpisodes = 0
    public var overspeedS: Double = 0
    /// Idling (ignition on, standing; `idle_start` … `idle_end`): episodes
    /// that began in the period, and the time idling in it, seconds.
    public var idleEpisodes = 0
    public var idleS: Double = 0
    /// Per fence: entries in the period and time inside, by fence name.
    public var fenceVisits: [FenceVisits] = []
    /// First and last accepted fix of the period, Unix ms.
    public var firstFixMs: Int64?
    public var lastFixMs: Int64?
    /// Accepted fixes in the period.
    public var fixes = 0

    public init(device: String?, name: String?) {
        self.device = device
        self.name = name
    }
}
