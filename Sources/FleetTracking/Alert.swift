/// One alert raised by the tracker, before it is stored (and numbered).
public struct Alert: Sendable, Equatable {
    public var type: AlertType
    public var device: String
    /// When the state that the alert reports began, Unix milliseconds (from the fixes).
    public var time: Int64
    /// The fence's id, for geofence alerts.
    public var fence: String?
    /// Where the device was, degrees.
    public var lat: Double
    public var lon: Double

    public init(
        type: AlertType, device: String, time: Int64, fence: String?, lat: Double, lon: Double
    ) {
        self.type = type
        self.device = device
        self.time = time
        self.fence = fence
        self.lat = lat
        self.lon = lon
    }
}
