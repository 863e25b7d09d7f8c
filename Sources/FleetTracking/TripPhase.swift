/// Where a device stands in trip detection.
public enum TripPhase: Sendable, Equatable {
    /// Stopped at `anchor` (where it came to rest); `lastNear` is its last fix
    /// within `stillRadiusM` of the anchor (the trip, when one starts, starts then).
    case parked(anchor: Waypoint, lastNear: Waypoint)
    /// On a trip that began at `start` (position: where it had stood).
    /// `candidate` is the first fix of the current stay: every fix since lies
    /// within `tripStartDistanceM` of it. `maxSpeedKmh` so far.
    case driving(start: Waypoint, candidate: Waypoint, maxSpeedKmh: Double)
}

extension TripPhase {
    /// On a trip (`driving`).
    public var isDriving: Bool {
        if case .driving = self { return true }
        return false
    }
}
