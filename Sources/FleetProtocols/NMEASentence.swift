/// One NMEA 0183 sentence fleetd reads (IEC 61162-1 / NMEA 0183 as receivers emit it).
public enum NMEASentence: Sendable, Equatable {
    case rmc(NMEARMC)
    case gga(NMEAGGA)
    /// `$PFLID,<device-id>`: fleetd's identity sentence.
    case identity(String)
    /// A well-formed sentence of another type (GSV, GSA, VTG…): not used.
    case other(String)
}

/// Recommended minimum data: time, date, position, speed, course, validity.
public struct NMEARMC: Sendable, Equatable {
    /// UTC milliseconds since the epoch (time of day + date).
    public var time: Int64
    /// Milliseconds since midnight UTC (to pair with a GGA).
    public var timeOfDay: Int
    /// Latitude and longitude; nil when the receiver left them empty.
    public var lat: Double?
    public var lon: Double?
    public var speedKmh: Double?
    public var course: Double?
    /// Status `A` and a mode (when present) other than `N`.
    public var valid: Bool
}

/// Fix data: quality, satellites, HDOP, altitude.
public struct NMEAGGA: Sendable, Equatable {
    public var timeOfDay: Int
    /// 0 invalid, 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float, 6 estimated…; nil when empty.
    public var quality: Int?
    public var sats: Int?
    public var hdop: Double?
    public var altM: Double?
}
