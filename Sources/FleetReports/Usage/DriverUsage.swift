/// One driver's part of the usage report: the finished trips identified
/// with their key (`TripRecord.driver`) that started in the period.
public struct DriverUsage: Sendable, Equatable, Codable {
    /// The driver's key (a Teltonika iButton, 16 hexadecimal digits).
    public var driver: String
    public var trips: Int
    /// Distance of those trips, metres; their duration, seconds (0.1).
    public var distanceM: Double
    public var drivingS: Double
    /// The devices driven, sorted.
    public var devices: [String]

    enum CodingKeys: String, CodingKey {
        case driver, trips, distanceM = "distance_m", drivingS = "driving_s", devices
    }

    public init(
        driver: String, trips: Int = 0, distanceM: Double = 0, drivingS: Double = 0,
        devices: [String] = []
    ) {
        self.driver = driver
        self.trips = trips
        self.distanceM = distanceM
        self.drivingS = drivingS
        self.devices = devices
    }
}
