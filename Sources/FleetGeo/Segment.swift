/// Planar segment predicates in lon/lat degrees.
public enum Segment {
    /// Tolerance, in degrees, under which a point counts as on a segment.
    public static let tolerance: Double = 1e-12

    /// True when `(x, y)` lies on the segment from `(x1, y1)` to `(x2, y2)`.
    @inlinable
    public static func contains(
        x: Double, y: Double, x1: Double, y1: Double, x2: Double, y2: Double
    ) -> Bool {
        let minX = min(x1, x2) - tolerance
        let maxX = max(x1, x2) + tolerance
        let minY = min(y1, y2) - tolerance
        let maxY = max(y1, y2) + tolerance
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return false }
        let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        let scale = max(abs(x2 - x1), abs(y2 - y1))
        return abs(cross) <= tolerance * max(scale, 1)
    }

    /// True when the closed segments p1–p2 and q1–q2 share at least one point.
    public static func intersects(
        _ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double,
        _ q1x: Double, _ q1y: Double, _ q2x: Double, _ q2y: Double
    ) -> Bool {
        let d1 = orient(q1x, q1y, q2x, q2y, p1x, p1y)
        let d2 = orient(q1x, q1y, q2x, q2y, p2x, p2y)
        let d3 = orient(p1x, p1y, p2x, p2y, q1x, q1y)
        let d4 = orient(p1x, p1y, p2x, p2y, q2x, q2y)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
        {
            return true
        }
        if d1 == 0 && contains(x: p1x, y: p1y, x1: q1x, y1: q1y, x2: q2x, y2: q2y) { return true }
        if d2 == 0 && contains(x: p2x, y: p2y, x1: q1x, y1: q1y, x2: q2x, y2: q2y) { return true }
        if d3 == 0 && contains(x: q1x, y: q1y, x1: p1x, y1: p1y, x2: p2x, y2: p2y) { return true }
        if d4 == 0 && contains(x: q2x, y: q2y, x1: p1x, y1: p1y, x2: p2x, y2: p2y) { return true }
        return false
    }

    /// Sign of the turn a→b→c: positive counter-clockwise, negative clockwise, 0 collinear.
    @inlinable
    public static func orient(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Double {
        (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    }
}
