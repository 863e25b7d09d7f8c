import FleetGeo

/// The odometer gate: whether a vehicle is parked or moving, judged from
/// the scatter of its fixes rather than from a speed threshold.
///
/// Parked, fixes scatter around their mean; one fix beyond `stillRadiusM`
/// is held (`pending`), a second one in a row starts moving and counts the
/// distance from the mean through both. Moving, every segment counts; once
/// the vehicle has stayed within `stillRadiusM` of one fix (`rest`) for
/// `stillTimeS`, it is parked again and the odometer goes back to its value
/// at `rest`, so the scatter of a stop adds nothing.
public enum Motion: Sendable, Equatable {
    /// Parked around (`lat`, `lon`), the mean of the last `weight` (≤ 100)
    /// fixes; `rest` is where and when it came to rest.
    case still(lat: Double, lon: Double, weight: Int, rest: Waypoint, pending: Waypoint?)
    /// Moving; `rest` is the first fix of the current stay (every fix since
    /// within `stillRadiusM` of it).
    case moving(rest: Waypoint)

    /// Where and when the vehicle last came to rest (parked) or began its
    /// current stay (moving).
    public var rest: Waypoint {
        switch self {
        case .still(_, _, _, let r, _), .moving(let r): r
        }
    }

    public var isStill: Bool {
        if case .still = self { true } else { false }
    }

    /// Parked at `p`.
    static func parked(at p: Waypoint) -> Motion {
        .still(lat: p.lat, lon: p.lon, weight: 1, rest: p, pending: nil)
    }

    /// Advances the gate with the accepted fix `p` (its odometer field is the
    /// odometer before this fix); `last` is the previous accepted position.
    /// Returns the odometer after the fix.
    mutating func advance(
        to p: Waypoint, from last: (lat: Double, lon: Double), settings: TrackerSettings
    ) -> Double {
        var odometer = p.odometerM
        switch self {
        case .still(let lat, let lon, let weight, let rest, let pending):
            let d = Haversine.distance(lat1: lat, lon1: lon, lat2: p.lat, lon2: p.lon)
            if d <= settings.stillRadiusM {
                let w = min(weight + 1, 100)
                self = .still(
                    lat: lat + (p.lat - lat) / Double(w), lon: lon + (p.lon - lon) / Double(w),
                    weight: w, rest: rest, pending: nil)
            } else if let q = pending {
                odometer +=
                    Haversine.distance(lat1: lat, lon1: lon, lat2: q.lat, lon2: q.lon)
                    + q.distance(lat: p.lat, lon: p.lon)
                var r = p
                r.odometerM = odometer
                self = .moving(rest: r)
            } else {
                self = .still(lat: lat, lon: lon, weight: weight, rest: rest, pending: p)
            }
        case .moving(let rest):
            odometer += Haversine.distance(lat1: last.lat, lon1: last.lon, lat2: p.lat, lon2: p.lon)
            if rest.distance(lat: p.lat, lon: p.lon) <= settings.stillRadiusM {
                if Double(p.time - rest.time) >= settings.stillTimeS * 1000, p.fixNo - rest.fixNo >= 2 {
                    odometer = rest.odometerM
                    self = .parked(at: rest)
                }
            } else {
                var r = p
                r.odometerM = odometer
                self = .moving(rest: r)
            }
        }
        return odometer
    }
}
