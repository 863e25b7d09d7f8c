import Foundation

/// Great-circle distances on a sphere of the mean Earth radius.
///
/// fleetd measures every distance (circle radii, hysteresis margins, trip
/// mileage) with the haversine formula on R = 6 371 008.8 m, the IUGG mean
/// radius. Against the WGS 84 geodesic it is at most 0.56 % off worldwide.
public enum Haversine {
    /// Mean Earth radius in metres (IUGG R₁).
    public static let earthRadius: Double = 6_371_008.8

    /// Distance in metres between two positions given in degrees.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
    }

    /// Distance in metres between two positions given in degrees.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let toRad = Double.pi / 180
        let dLat = (lat2 - lat1) * toRad
        let dLon = (lon2 - lon1) * toRad
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let h = s1 * s1 + cos(lat1 * toRad) * cos(lat2 * toRad) * s2 * s2
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
