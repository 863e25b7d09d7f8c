/// A stretch of speeding, from the first fix over the limit.
public struct OverspeedEpisode: Sendable, Equatable {
    /// First fix over the limit, Unix ms.
    public var since: Int64
    /// Highest speed seen in it, km/h.
    public var maxKmh: Double
    /// The limit that applied when it began, km/h.
    public var limitKmh: Double
    /// `overspeed_start` has been raised.
    public var announced: Bool
    /// First fix back at or under the limit, while waiting to confirm the end.
    public var underSince: Int64?

    public init(
        since: Int64, maxKmh: Double, limitKmh: Double, announced: Bool = false,
        underSince: Int64? = nil
    ) {
        self.since = since
        self.maxKmh = maxKmh
        self.limitKmh = limitKmh
        self.announced = announced
        self.underSince = underSince
    }
}
