/// A position on the WGS 84 ellipsoid in decimal degrees.
///
/// `lat` is positive north, `lon` positive east. The type does not range-check:
/// the GeoJSON loader and the protocol screens do that, with a reason.
public struct Coordinate: Hashable, Sendable {
    /// Latitude in degrees, −90…90 when valid.
    public var lat: Double
    /// Longitude in degrees, −180…180 when valid (unwrapped rings may run past ±180).
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// True when both parts are finite and within −90…90 and −180…180.
    public var isValid: Bool {
        lat.isFinite && lon.isFinite && abs(lat) <= 90 && abs(lon) <= 180
    }
}
