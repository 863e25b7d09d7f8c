import FleetGeo

/// A moment of a vehicle: when, where, and its odometer then.
public struct Waypoint: Sendable, Equatable {
    /// Unix milliseconds.
    public var time: Int64
    /// Degrees, WGS 84.
    public var lat: Double
    public var lon: Double
    /// The device's odometer at that moment, metres.
    public var odometerM: Double
    /// How many fixes the device had had accepted by then (this one included).
    public var fixNo: Int64

    public init(time: Int64, lat: Double, lon: Double, odometerM: Double, fixNo: Int64) {
        self.time = time
        self.lat = lat
        self.lon = lon
        self.odometerM = odometerM
        self.fixNo = fixNo
    }

    /// Metres from this waypoint to a position (WGS 84 geodesic).
    func distance(lat: Double, lon: Double) -> Double {
        Geodesic.distance(lat1: self.lat, lon1: self.lon, lat2: lat, lon2: lon)
    }
}
