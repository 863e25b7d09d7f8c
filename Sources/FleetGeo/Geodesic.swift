import Foundation

/// Distances on the WGS 84 ellipsoid: what trip mileage and the simulator's
/// ground truth are measured with.
///
/// Segments shorter than about 5 km (every step between two fixes of a
/// moving vehicle) use the ellipsoid's meridional and prime-vertical radii of
/// curvature at the mean latitude (the flat-ellipsoid approximation; its
/// relative error is below 1e-6 at that length); longer ones Vincenty's
/// inverse formula (T. Vincenty, "Direct and inverse solutions of geodesics
/// on the ellipsoid", Survey Review 23 (176), 1975), iterated to 1e-12 rad.
/// For nearly antipodal points, where Vincenty's iteration does not converge,
/// the haversine distance scaled to the ellipsoid's mean radius is returned
/// (within 0.5 %; no vehicle drives there between two fixes).
///
/// Checked against values computed with GeographicLib (C. F. F. Karney,
/// "Algorithms for geodesics", J. Geodesy 87, 2013) in `GeodesicTests`.
public enum Geodesic {
    /// WGS 84 semi-major axis, metres.
    public static let a = 6_378_137.0
    /// WGS 84 flattening.
    public static let f = 1 / 298.257_223_563
    /// Semi-minor axis, metres.
    public static let b = a * (1 - f)
    /// First eccentricity squared.
    public static let e2 = f * (2 - f)

    /// Distance in metres along the WGS 84 geodesic between two positions
    /// given in degrees.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var dLon = lon2 - lon1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let dLat = lat2 - lat1
        if abs(dLat) < 0.05, abs(dLon) < 0.05 {
            let toRad = Double.pi / 180
            let phi = (lat1 + lat2) / 2 * toRad
            let s = sin(phi)
            let w = 1 - e2 * s * s
            let n = a / w.squareRoot()  // prime vertical radius
            let m = a * (1 - e2) / (w * w.squareRoot())  // meridional radius
            let north = m * dLat * toRad
            let east = n * cos(phi) * dLon * toRad
            return (north * north + east * east).squareRoot()
        }
        return vincenty(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
    }

    /// Distance in metres between two positions.
    @inlinable
    public static func distance(_ p: Coordinate, _ q: Coordinate) -> Double {
        distance(lat1: p.lat, lon1: p.lon, lat2: q.lat, lon2: q.lon)
    }

    /// Vincenty's inverse solution, metres; the scaled haversine distance when
    /// it does not converge in 200 iterations (nearly antipodal points).
    public static func vincenty(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let toRad = Double.pi / 180
        let l = (lon2 - lon1) * toRad
        let u1 = atan((1 - f) * tan(lat1 * toRad))
        let u2 = atan((1 - f) * tan(lat2 * toRad))
        let (sinU1, cosU1, sinU2, cosU2) = (sin(u1), cos(u1), sin(u2), cos(u2))
        var lambda = l
        for _ in 0..<200 {
            let sinL = sin(lambda)
            let cosL = cos(lambda)
            let t1 = cosU2 * sinL
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosL
            let sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }  // the same point
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda =
                l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma
                    * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uu = cos2Alpha * (a * a - b * b) / (b * b)
                let aa = 1 + uu / 16384 * (4096 + uu * (-768 + uu * (320 - 175 * uu)))
                let bb = uu / 1024 * (256 + uu * (-128 + uu * (74 - 47 * uu)))
                let m2 = cos2SigmaM * cos2SigmaM
                let dSigma =
                    bb * sinSigma
                    * (cos2SigmaM + bb / 4
                        * (cosSigma * (-1 + 2 * m2) - bb / 6 * cos2SigmaM
                            * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * m2)))
                return b * aa * (sigma - dSigma)
            }
        }
        let meanRadius = (2 * a + b) / 3
        return Haversine.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            / Haversine.earthRadius * meanRadius
    }
}
