/// What the tracker remembers of one device between fixes.
///
/// It is persisted in the same transaction as the positions and alerts that
/// produced it, so after a restart tracking continues where the data ends.
public struct DeviceState: Sendable, Equatable {
    /// Time of the last fix processed in order, Unix milliseconds.
    public var lastTime: Int64
    /// Position of the last accepted valid fix, degrees (NaN before the first).
    public var lat: Double
    public var lon: Double
    /// Time of that fix, Unix ms (for crossings between two fixes).
    public var positionTime: Int64
    /// The fences the device is in, entering or leaving, by fence id, ascending.
    /// Setting or changing it from outside the tracker drops the ranks
    /// cached with it (`ranksEpoch`): the next fix looks the ids up.
    public var fences: [FenceMembership] {
        didSet { ranksEpoch = RankHint() }
    }
    /// Odometer, metres: gated distance over accepted fixes (see `Motion`).
    public var odometerM: Double = 0
    /// Accepted fixes so far.
    public var accepted: Int64 = 0
    /// Valid fixes processed in order so far (accepted and suspects).
    public var seq: Int64 = 0
    /// The odometer gate; nil before the first accepted fix.
    public var motion: Motion?
    /// Trip detection; nil before the first accepted fix.
    public var trip: TripPhase?
    /// Fixes held by the jump filter, oldest first.
    public var suspects: [Suspect] = []
    /// The current stretch over the speed limit, if any.
    public var overspeed: OverspeedEpisode?
    /// `device_silent` raised and no fix since.
    public var silent: Bool = false
    /// The span a trip's maximum speed is being measured over (`SpeedWindow`).
    public var window: SpeedWindow?
    /// The ignition as the device last reported it (nil: never reported),
    /// and since when, Unix ms.
    public var ignition: Bool?
    public var ignitionSince: Int64 = 0
    /// The current idling (ignition on, standing), if any.
    public var idle: IdleEpisode?
    /// The driver whose key (Teltonika iButton) the device last reported;
    /// nil when none or removed.
    public var driver: String?
    /// The tracker generation whose fence ranks `fences` carry (0: none).
    var ranksEpoch = RankHint()

    public init(
        lastTime: Int64, lat: Double, lon: Double, positionTime: Int64? = nil,
        fences: [FenceMembership]
    ) {
        self.lastTime = lastTime
        self.lat = lat
        self.lon = lon
        self.positionTime = positionTime ?? lastTime
        self.fences = fences
    }

    /// Ids of the fences the device is confirmed inside (the enter alert raised).
    public var insideFences: [String] {
        fences.compactMap {
            switch $0.phase {
            case .inside, .exiting: $0.fence
            case .entering: nil
            }
        }
    }

    /// The last accepted fix as a waypoint (nil before the first).
    public var lastWaypoint: Waypoint? {
        lat.isNaN
            ? nil
            : Waypoint(
                time: positionTime, lat: lat, lon: lon, odometerM: odometerM, fixNo: accepted)
    }

    /// The memberships as stored (one line each).
    public var fencesText: String {
        var out = ""
        out.reserveCapacity(fences.count * 32)
        for (k, m) in fences.enumerated() {
            if k > 0 { out += "\n" }
            m.appendLine(to: &out)
        }
        return out
    }

    /// Reads stored memberships; bare ids (the first schema) count as inside since `lastTime`.
    public static func fences(fromText text: String, lastTime: Int64) -> [FenceMembership] {
        text.split(separator: "\n").compactMap { FenceMembership(line: $0, fallback: lastTime) }
    }
}
