/// One recorded point of a route.
public struct RoutePoint: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    /// Unix milliseconds.
    public var time: Int64
    /// Speed in m/s, when the recording has it.
    public var speedMps: Double?
    /// Elevation in metres, when the recording has it.
    public var altM: Double?

    public init(lat: Double, lon: Double, time: Int64, speedMps: Double? = nil, altM: Double? = nil)
    {
        self.lat = lat
        self.lon = lon
        self.time = time
        self.speedMps = speedMps
        self.altM = altM
    }
}

/// A recorded route: a vehicle's points in time order.
public struct Route: Sendable {
    /// The device id it is replayed as.
    public var device: String
    public var points: [RoutePoint]

    public init(device: String, points: [RoutePoint]) {
        self.device = device
        self.points = points
    }
}

/// A route file that cannot be read: file, line and what is wrong.
public struct RouteFileError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let message: String

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}
