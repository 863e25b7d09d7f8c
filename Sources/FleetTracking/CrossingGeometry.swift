import FleetGeo

/// The geometry of a way between two fixes against one fence: how deep it
/// went inside, and when it crossed the boundary. Pure functions of
/// coordinates and times (ms); the fence detector and the late-detour
/// check date their alerts with them.
enum CrossingGeometry {
    /// The slowest average speed (m/s) of a way between two fixes along
    /// which a crossing is dated by interpolation (7.2 km/h: driving).
    static let interpolateMinMps = 2.0

    /// True when one of 15 evenly spaced points of the segment is inside
    /// `fence` and more than `margin` metres from its boundary.
    static func passesDeep(
        _ fence: Fence, from a: Coordinate, to b: Coordinate, margin: Double
    ) -> Bool {
        deepPoint(fence, from: a, to: b, margin: margin) != nil
    }

    /// The first of 15 evenly spaced points of the segment inside `fence`
    /// more than `margin` metres from its boundary, as a fraction of the way.
    static func deepPoint(
        _ fence: Fence, from a: Coordinate, to b: Coordinate, margin: Double
    ) -> Double? {
        for k in 1..<16 {
            let f = Double(k) / 16
            let q = Coordinate(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)
            if fence.contains(q), margin <= 0 || !fence.boundary(within: margin, of: q) {
                return f
            }
        }
        return nil
    }

    /// When the straight way from `a` (at `ta`, ms) to `b` (at `tb`) crossed
    /// `fence`'s boundary, interpolated in time along it (bisection to
    /// 1/65 536 of the way); nil when both ends are on the same side, or when
    /// the way is slower than `interpolateMinMps` on average (a vehicle
    /// that stood for part of it: when it moved is unknown). Entries and
    /// exits are dated by it: after a tunnel, a coverage gap or a sparse
    /// device's interval, the crossing lies between the fixes, not at the
    /// first fix beyond it.
    static func crossingTime(
        _ fence: Fence, from a: Coordinate, at ta: Int64, to b: Coordinate, at tb: Int64
    ) -> Int64? {
        let inA = fence.contains(a)
        guard inA != fence.contains(b), tb > ta else { return nil }
        let metres = Haversine.distance(a, b)
        guard metres >= interpolateMinMps * Double(tb - ta) / 1000 else { return nil }
        var lo = 0.0
        var hi = 1.0
        for _ in 0..<16 {
            let f = (lo + hi) / 2
            let q = Coordinate(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)
            if fence.contains(q) == inA { lo = f } else { hi = f }
        }
        return ta + Int64((Double(tb - ta) * hi).rounded())
    }

    /// When the straight way from `prev` to `p` (at `time`, ms), both ends
    /// outside `fence` (for an end inside, the caller dates the entry
    /// itself), went in and came out: where it crossed in before and
    /// out after its deep point (`deep`, a fraction of the way, from
    /// `deepPoint`), interpolated in time (`crossingTime`); else, or for a
    /// way too slow to interpolate, its middle.
    static func passTimes(
        _ fence: Fence, from prev: Waypoint, to p: Coordinate, at time: Int64, deep: Double?
    ) -> (entered: Int64, left: Int64) {
        let mid = prev.time + (time - prev.time) / 2
        guard let f = deep else { return (mid, mid) }
        let from = Coordinate(lat: prev.lat, lon: prev.lon)
        let q = Coordinate(
            lat: from.lat + (p.lat - from.lat) * f, lon: from.lon + (p.lon - from.lon) * f)
        let tq = prev.time + Int64((Double(time - prev.time) * f).rounded())
        let entered = crossingTime(fence, from: from, at: prev.time, to: q, at: tq) ?? mid
        let left = max(entered, crossingTime(fence, from: q, at: tq, to: p, at: time) ?? mid)
        return (entered, left)
    }
}
