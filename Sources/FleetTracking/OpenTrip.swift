import FleetGeo

/// A trip under way: from where the vehicle stood to its newest accepted
/// position, as the API lists it beside finished trips (`"open": true`).
public struct OpenTrip: Sendable, Equatable {
    public var device: String
    /// Departure (as `TripPhase.driving` holds it) and the newest accepted
    /// position, with the odometer at each.
    public var start: Waypoint
    public var last: Waypoint
    /// Highest speed so far, km/h.
    public var maxSpeedKmh: Double
    /// Names of the fences containing the start (", " between several); nil
    /// when none, or when not looked up (`Tracker.openTrip(device:state:fences:)`).
    public var startFence: String?
    /// Their ids (sorted, ", " between several), looked up with the names.
    public var startFenceId: String?

    public init(
        device: String, start: Waypoint, last: Waypoint, maxSpeedKmh: Double, startFence: String?
    ) {
        self.device = device
        self.start = start
        self.last = last
        self.maxSpeedKmh = maxSpeedKmh
        self.startFence = startFence
    }

    /// Gated distance driven so far, metres.
    public var distanceM: Double { max(0, last.odometerM - start.odometerM) }
    /// Accepted fixes from departure to the newest, both included.
    public var fixes: Int64 { last.fixNo - start.fixNo + 1 }
}

extension Tracker {
    /// The trip `state` is on, or nil when parked or before the first fix.
    /// `fences`: list the start's fences (`OpenTrip.listStartFences`, an
    /// index query; the engine leaves it to the trip board's readers).
    public func openTrip(device: String, state st: DeviceState, fences: Bool) -> OpenTrip? {
        openTrip(device: device, trip: st.trip, last: st.lastWaypoint, fences: fences)
    }

    /// The same from the two parts of a state it reads (`DeviceState.trip`
    /// and its last accepted position), for a caller that has the state in
    /// place and would otherwise copy it (the engine, once per fix).
    public func openTrip(device: String, trip: TripPhase?, last: Waypoint?, fences: Bool)
        -> OpenTrip?
    {
        guard case .driving(let start, _, let maxKmh) = trip, let last else { return nil }
        var trip = OpenTrip(
            device: device, start: start, last: last, maxSpeedKmh: maxKmh, startFence: nil)
        if fences { trip.listStartFences(in: self.fences) }
        return trip
    }
}

extension OpenTrip {
    /// Lists the fences of `fences` containing the trip's start into
    /// `startFence` and `startFenceId` (as `Tracker.openTrip` with
    /// `fences: true` does).
    public mutating func listStartFences(in fences: FenceIndex) {
        let at = fences.namesAndIds(lat: start.lat, lon: start.lon)
        startFence = at.names
        startFenceId = at.ids
    }
}
