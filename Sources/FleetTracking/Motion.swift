import FleetGeo

/// The odometer gate: whether a vehicle is parked or moving, judged from
/// the scatter of its fixes rather than from a speed threshold.
///
/// Parked, fixes scatter around their mean (fixes within half the radius
/// update it, so a slow start does not drag it along); one fix beyond
/// `stillRadiusM` of it is held (`pending`), a second one in a row starts moving and counts
/// the distance from where the vehicle came to rest through both. Moving,
/// every segment counts; once the vehicle has stayed within `stillRadiusM` of
/// one fix (`rest`) for `stillTimeS`, it is parked again where the stay
/// ended (the stay's offsets from `rest` averaged with weights halving at
/// each older fix, so the last metres of a slow approach count and a fix's
/// scatter is averaged over the last few), and the odometer becomes its
/// value at `rest` plus the distance from `rest` to there: the scatter of a
/// stop adds nothing, the approach to it is kept. A first fix `stillTimeS`
/// or more into a stay that lies beyond `stillRadiusM` of `rest` but
/// within half of it of where the stay ends parks the vehicle the same way
/// (a tracker that sends a fix a minute once stopped, that fix scattered).
public enum Motion: Sendable, Equatable {
    /// Parked around (`lat`, `lon`), the mean of the last `weight` (≤ 100)
    /// fixes; `rest` is where and when it came to rest.
    case still(lat: Double, lon: Double, weight: Int, rest: Waypoint, pending: Waypoint?)
    /// Moving; `rest` is the first fix of the current stay (every fix since
    /// within `stillRadiusM` of it); `stay` sums the offsets (degrees) of the
    /// fixes since then from it, and counts them.
    case moving(rest: Waypoint, stay: Stay)

    /// Offsets of a stay's fixes from its first one: their sums and count,
    /// and their average with weights halving at each older fix
    /// (`recentLat`, `recentLon`: where the stay ends).
    public struct Stay: Sendable, Equatable {
        public var dLat = 0.0
        public var dLon = 0.0
        public var count = 0
        public var recentLat = 0.0
        public var recentLon = 0.0

        public init(
            dLat: Double = 0, dLon: Double = 0, count: Int = 0, recentLat: Double = 0,
            recentLon: Double = 0
        ) {
            self.dLat = dLat
            self.dLon = dLon
            self.count = count
            self.recentLat = recentLat
            self.recentLon = recentLon
        }

        /// Adds a fix's offset from the stay's first fix.
        mutating func add(dLat a: Double, dLon b: Double) {
            dLat += a
            dLon += b
            count += 1
            // The first fix's weight is 1 (the offset itself); later ones halve the past.
            let w = count == 1 ? 1.0 : 0.5
            recentLat += (a - recentLat) * w
            recentLon += (b - recentLon) * w
        }
    }

    /// Where and when the vehicle last came to rest (parked) or began its
    /// current stay (moving).
    public var rest: Waypoint {
        switch self {
        case .still(_, _, _, let r, _), .moving(let r, _): r
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
            let d = Geodesic.distance(lat1: lat, lon1: lon, lat2: p.lat, lon2: p.lon)
            if d <= settings.stillRadiusM / 2 {
                let w = min(weight + 1, 100)
                self = .still(
                    lat: lat + (p.lat - lat) / Double(w), lon: lon + (p.lon - lon) / Double(w),
                    weight: w, rest: rest, pending: nil)
            } else if d <= settings.stillRadiusM {
                // Scatter, or a slow start: it does not pull the mean along.
                self = .still(lat: lat, lon: lon, weight: weight, rest: rest, pending: nil)
            } else if let q = pending {
                odometer +=
                    rest.distance(lat: q.lat, lon: q.lon) + q.distance(lat: p.lat, lon: p.lon)
                var r = p
                r.odometerM = odometer
                self = .moving(rest: r, stay: Stay())
            } else {
                self = .still(lat: lat, lon: lon, weight: weight, rest: rest, pending: p)
            }
        case .moving(let rest, var stay):
            odometer += Geodesic.distance(lat1: last.lat, lon1: last.lon, lat2: p.lat, lon2: p.lon)
            if rest.distance(lat: p.lat, lon: p.lon) <= settings.stillRadiusM {
                stay.add(dLat: p.lat - rest.lat, dLon: p.lon - rest.lon)
                if Double(p.time - rest.time) >= settings.stillTimeS * 1000, stay.count >= 2 {
                    var at = rest
                    at.lat += stay.recentLat
                    at.lon += stay.recentLon
                    odometer = rest.odometerM + rest.distance(lat: at.lat, lon: at.lon)
                    at.odometerM = odometer
                    self = .still(
                        lat: at.lat, lon: at.lon, weight: min(stay.count, 100), rest: at,
                        pending: nil)
                } else {
                    self = .moving(rest: rest, stay: stay)
                }
            } else if stay.count >= 2, Double(p.time - rest.time) >= settings.stillTimeS * 1000,
                Geodesic.distance(
                    lat1: rest.lat + stay.recentLat, lon1: rest.lon + stay.recentLon,
                    lat2: p.lat, lon2: p.lon) <= settings.stillRadiusM / 2
            {
                // Parked where the stay ended, seen only now: the stay began
                // on the approach (its first fix up to `stillRadiusM` short
                // of where the vehicle stopped), the device then went quiet
                // (a fix a minute parked), and this fix, scattered beyond
                // the stay's first one, lies by where the stay ended. The
                // vehicle came to rest when the stay began, as it would
                // have had a fix come 30 s in.
                var at = rest
                at.lat += stay.recentLat
                at.lon += stay.recentLon
                odometer = rest.odometerM + rest.distance(lat: at.lat, lon: at.lon)
                at.odometerM = odometer
                let w = min(stay.count + 1, 100)
                self = .still(
                    lat: at.lat + (p.lat - at.lat) / Double(w),
                    lon: at.lon + (p.lon - at.lon) / Double(w), weight: w, rest: at,
                    pending: nil)
            } else {
                var r = p
                r.odometerM = odometer
                self = .moving(rest: r, stay: Stay())
            }
        }
        return odometer
    }
}
