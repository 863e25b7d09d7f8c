/// What one device's accepted positions in a period come to: the reports'
/// view of positions (`StoreReading.positionSpans`).
public struct PositionSpan: Sendable, Equatable {
    public var device: String
    /// The first and last accepted fix of the period, Unix ms.
    public var firstMs: Int64
    public var lastMs: Int64
    /// Accepted positions in the period.
    public var count: Int
    /// The highest speed reported, km/h; nil when no fix carried a speed.
    public var maxSpeedKmh: Double?

    public init(device: String, firstMs: Int64, lastMs: Int64, count: Int, maxSpeedKmh: Double?) {
        self.device = device
        self.firstMs = firstMs
        self.lastMs = lastMs
        self.count = count
        self.maxSpeedKmh = maxSpeedKmh
    }
}
