/// What the tracker remembers of one device between fixes.
///
/// It is persisted in the same transaction as the positions and alerts that
/// produced it, so after a restart tracking continues where the data ends.
public struct DeviceState: Sendable, Equatable {
    /// Time of the last fix processed in order, Unix milliseconds.
    public var lastTime: Int64
    /// Position of the last accepted valid fix, degrees.
    public var lat: Double
    public var lon: Double
    /// Ids of the fences the device is inside, ascending.
    public var fences: [String]

    public init(lastTime: Int64, lat: Double, lon: Double, fences: [String]) {
        self.lastTime = lastTime
        self.lat = lat
        self.lon = lon
        self.fences = fences
    }
}
