/// A fix held by the jump filter: it implied an impossible speed from the
/// last accepted position.
public struct Suspect: Sendable, Equatable {
    /// Unix milliseconds.
    public var time: Int64
    public var lat: Double
    public var lon: Double
    /// The device's valid-fix sequence number when it came (for the k-of-n window).
    public var seq: Int64

    public init(time: Int64, lat: Double, lon: Double, seq: Int64) {
        self.time = time
        self.lat = lat
        self.lon = lon
        self.seq = seq
    }
}
