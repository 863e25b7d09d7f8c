/// An axis-aligned box in lon/lat degrees (x = longitude, y = latitude).
public struct BoundingBox: Sendable, Equatable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The smallest box holding every position; an empty list gives an inverted box.
    public init(_ positions: [Coordinate]) {
        self = .empty
        for p in positions { extend(x: p.lon, y: p.lat) }
    }

    /// A box that contains nothing and grows with `extend`.
    public static let empty = BoundingBox(
        minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    public mutating func extend(x: Double, y: Double) {
        minX = min(minX, x)
        minY = min(minY, y)
        maxX = max(maxX, x)
        maxY = max(maxY, y)
    }

    public mutating func extend(_ other: BoundingBox) {
        minX = min(minX, other.minX)
        minY = min(minY, other.minY)
        maxX = max(maxX, other.maxX)
        maxY = max(maxY, other.maxY)
    }

    /// True when the point lies in the box, edges included.
    @inlinable
    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    public var isEmpty: Bool { minX > maxX || minY > maxY }
}
