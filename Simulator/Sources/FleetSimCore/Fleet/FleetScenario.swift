import FleetProtocols

/// What `fleetsim fleet` simulates: the fleet, its devices and the mess
/// between them and fleetd. Every random choice is drawn from `seed`, so a
/// scenario and its truth are the same on every run.
public struct FleetScenario: Sendable, Equatable {
    /// Vehicles (≥ 1) and simulated hours (> 0).
    public var vehicles: Int = 20
    public var hours: Double = 24
    public var seed: UInt64 = 1
    /// A protocol's name (`TrackerProtocol`: json, teltonika, nmea, osmand
    /// — phones over HTTP), or mixed (vehicle k: the protocols over UDP in
    /// turn, json, teltonika, nmea).
    public var proto: String = "mixed"
    /// Fix time of the start, Unix ms (default 2026-01-05T00:00:00Z, a Monday).
    public var startMs: Int64 = 1_767_571_200_000
    /// GNSS error: standard deviation per axis, metres, correlated over
    /// `noiseCorrelationS` (first-order Gauss–Markov).
    public var noiseM: Double = 5
    public var noiseCorrelationS: Double = 60
    /// Share of fixes that are multipath outliers (100–600 m off), and the
    /// share of those whose reported accuracy says so.
    public var outlierRate: Double = 0.002
    public var outliersReported: Double = 0.5
    /// Share of journeys with a tunnel (60–240 s with no fix), and with a
    /// coverage gap (5–40 min during which fixes are buffered and then sent
    /// oldest first, up to `backlogPerPacket` to a datagram).
    public var tunnelRate: Double = 0.3
    public var gapRate: Double = 0.15
    public var backlogPerPacket: Int = 25
    /// Share of datagrams the network delivers twice, and out of order.
    public var duplicateRate: Double = 0.005
    public var reorderRate: Double = 0.005
    /// Seconds between fixes while parked (ignition off).
    public var parkedIntervalS: Int = 60
    /// Speed limit the truth's overspeed episodes are measured against, km/h
    /// (0: none), and how long an episode lasts at least, s (fleetd's
    /// `overspeed.limit_kmh` and `overspeed.min_duration_s` should match).
    public var speedLimitKmh: Double = 80
    public var overspeedMinS: Double = 30
    /// Hysteresis of the truth's exits, metres: an exit counts once the true
    /// path is this far outside (fleetd's `tracking.margin_m`).
    public var marginM: Double = 20
    /// Each vehicle parks at both ends of its course by the edge of a yard
    /// fence of its own (drawn for each end): having driven 75 m through
    /// it, `yardInsideM` short of its far edge, or `yardEdgeM` outside it.
    /// Inside, fixes scatter across the edge and must raise no exit;
    /// outside, they scatter into the yard and must raise no entry.
    public var yards: Bool = true
    public var yardEdgeM: Double = 3
    public var yardInsideM: Double = 5

    public init() {}

    /// The protocol of vehicle `k`.
    public func proto(of k: Int) -> TrackerProtocol {
        if let p = TrackerProtocol(rawValue: proto) { return p }
        let mixed = TrackerProtocol.carried(by: .udp)
        return mixed[k % mixed.count]
    }

    /// The protocols a simulated fleet sends in: every one.
    public static let simulated = TrackerProtocol.allCases

    /// Whether the options make sense: the first problem, named, or nil.
    public var problem: String? {
        if vehicles < 1 || vehicles > 100_000 { return "--vehicles must be 1…100000" }
        if !(hours > 0 && hours <= 24 * 31) { return "--hours must be more than 0 and at most 744" }
        if proto != "mixed", TrackerProtocol(rawValue: proto).map(Self.simulated.contains) != true {
            return
                "--proto must be \(TrackerProtocol.list(Self.simulated, also: ["mixed"])), found \"\(proto)\""
        }
        if !(noiseM >= 0 && noiseM <= 1000) { return "--noise must be 0…1000 metres" }
        for (name, v) in [
            ("--outliers", outlierRate), ("--tunnels", tunnelRate), ("--gaps", gapRate),
            ("--duplicates", duplicateRate), ("--reorders", reorderRate),
        ] where !(v >= 0 && v <= 1) {
            return "\(name) must be a share between 0 and 1, found \(v)"
        }
        return nil
    }
}
