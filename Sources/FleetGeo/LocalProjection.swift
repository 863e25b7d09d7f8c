import Foundation

/// An equirectangular projection around a reference point, in metres.
///
/// Used for distances from a point to a line (corridors, hysteresis margins)
/// over short spans: the error stays under 0.1 % for spans up to ~50 km away
/// from the poles. Longitudes are unwrapped to the nearest copy of the
/// reference, so spans across ±180° work.
public struct LocalProjection: Sendable {
    public let lat0: Double
    public let lon0: Double
    @usableFromInline let kx: Double
    @usableFromInline let ky: Double

    public init(lat0: Double, lon0: Double) {
        self.lat0 = lat0
        self.lon0 = lon0
        let mPerDeg = Haversine.earthRadius * Double.pi / 180
        ky = mPerDeg
        kx = mPerDeg * max(cos(lat0 * Double.pi / 180), 1e-9)
    }

    /// Metres east (x) and north (y) of the reference.
    @inlinable
    public func project(lat: Double, lon: Double) -> (x: Double, y: Double) {
        var dLon = lon - lon0
        dLon -= 360 * (dLon / 360).rounded()
        return (dLon * kx, (lat - lat0) * ky)
    }

    /// Distance in metres from the reference point to the segment a–b.
    public func distanceToSegment(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double
    {
        squaredDistanceToSegment(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2).squareRoot()
    }

    /// The square of `distanceToSegment`, m² (no square root, for comparisons).
    @inlinable
    public func squaredDistanceToSegment(lat1: Double, lon1: Double, lat2: Double, lon2: Double)
        -> Double
    {
        let a = project(lat: lat1, lon: lon1)
        let b = project(lat: lat2, lon: lon2)
        return Self.squaredDistanceToSegment(a.x, a.y, b.x, b.y)
    }

    /// The square of the distance in metres from the reference (the
    /// origin) to the segment from (ax, ay) to (bx, by), both ends
    /// projected already (metres east and north).
    @inlinable
    static func squaredDistanceToSegment(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
    ) -> Double {
        let dx = bx - ax
        let dy = by - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
        t = min(1, max(0, t))
        let px = ax + t * dx
        let py = ay + t * dy
        return px * px + py * py
    }
}
