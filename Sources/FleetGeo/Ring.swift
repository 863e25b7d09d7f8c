/// A closed linear ring (RFC 7946 §3.1.6) stored as flat longitude and
/// latitude arrays, first position repeated last.
///
/// Edges are straight lines in lon/lat (RFC 7946 §3.1.1), as GEOS, shapely and
/// PostGIS geometry read them.
public struct Ring: Sendable {
    /// Longitudes in degrees; `xs.count == ys.count`, closed (last equals first).
    public let xs: [Double]
    /// Latitudes in degrees.
    public let ys: [Double]
    /// Bounding box of the ring.
    public let bounds: BoundingBox
    /// Bounding boxes of the edges in runs of `chunkEdges` (edges 0–7, 8–15,
    /// …; the last run may be shorter): `near(_:within:)` skips a run whose
    /// box is too far.
    let chunkBounds: [BoundingBox]
    /// Edges per run of `chunkBounds`.
    static let chunkEdges = 8

    /// Makes a ring from closed positions; the loader has checked closure and count.
    public init(_ positions: [Coordinate]) {
        xs = positions.map(\.lon)
        ys = positions.map(\.lat)
        bounds = BoundingBox(positions)
        var chunks: [BoundingBox] = []
        var start = 0
        while start < positions.count - 1 {
            let end = min(start + Self.chunkEdges, positions.count - 1)
            chunks.append(BoundingBox(Array(positions[start...end])))
            start = end
        }
        chunkBounds = chunks
    }

    /// Number of edges (positions − 1).
    public var edgeCount: Int { xs.count - 1 }

    /// Where `(x, y)` lies relative to the ring: crossing-number parity, with a
    /// point on an edge or vertex reported as `.boundary`. Exact for the
    /// doubles given: every comparison is either of coordinates or the
    /// sign of an orientation determinant (`Orientation`), so a point a
    /// hair's breadth outside an edge is outside, as GEOS places it.
    public func locate(x: Double, y: Double) -> PointLocation {
        var inside = false
        var onEdge = false
        xs.withUnsafeBufferPointer { xp in
            ys.withUnsafeBufferPointer { yp in
                var i = 0
                let n = xp.count - 1
                while i < n {
                    let x1 = xp[i]
                    let y1 = yp[i]
                    let x2 = xp[i + 1]
                    let y2 = yp[i + 1]
                    i += 1
                    // Only an edge whose box reaches the ray going east from the
                    // point can cross it or hold the point.
                    if (y1 < y && y2 < y) || (y1 > y && y2 > y) || (x1 < x && x2 < x) { continue }
                    let d = Orientation.sign(x1, y1, x2, y2, x, y)
                    if d == 0, Segment.within(x, y, x1, y1, x2, y2) {
                        onEdge = true
                        return
                    }
                    // The ray crosses an edge that straddles y (half-open: an end
                    // exactly at y counts on the upper side) with the point left
                    // of it going up, or right of it going down.
                    if (y1 > y) != (y2 > y), (y2 > y1) == (d > 0) { inside.toggle() }
                }
            }
        }
        if onEdge { return .boundary }
        return inside ? .inside : .outside
    }

    /// True when `(x, y)` lies exactly on an edge.
    public func onEdge(x: Double, y: Double) -> Bool {
        guard bounds.contains(x: x, y: y) else { return false }
        for i in 0..<edgeCount {
            if Segment.contains(
                x: x, y: y, x1: xs[i], y1: ys[i], x2: xs[i + 1], y2: ys[i + 1])
            {
                return true
            }
        }
        return false
    }
}

/// Where a point lies relative to a ring or an area.
public enum PointLocation: Sendable, Equatable {
    case inside, boundary, outside
}
