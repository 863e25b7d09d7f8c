/// Planar segment predicates in lon/lat degrees, exact for the doubles
/// given (`Orientation`): no tolerance band.
public enum Segment {
    /// True when `(x, y)` lies exactly on the closed segment from `(x1, y1)`
    /// to `(x2, y2)`.
    public static func contains(
        x: Double, y: Double, x1: Double, y1: Double, x2: Double, y2: Double
    ) -> Bool {
        guard x >= min(x1, x2), x <= max(x1, x2), y >= min(y1, y2), y <= max(y1, y2) else {
            return false
        }
        return Orientation.sign(x1, y1, x2, y2, x, y) == 0
    }

    /// True when the closed segments p1–p2 and q1–q2 share at least one point.
    public static func intersects(
        _ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double,
        _ q1x: Double, _ q1y: Double, _ q2x: Double, _ q2y: Double
    ) -> Bool {
        let d1 = Orientation.sign(q1x, q1y, q2x, q2y, p1x, p1y)
        let d2 = Orientation.sign(q1x, q1y, q2x, q2y, p2x, p2y)
        let d3 = Orientation.sign(p1x, p1y, p2x, p2y, q1x, q1y)
        let d4 = Orientation.sign(p1x, p1y, p2x, p2y, q2x, q2y)
        if d1 * d2 < 0 && d3 * d4 < 0 { return true }
        if d1 == 0 && within(p1x, p1y, q1x, q1y, q2x, q2y) { return true }
        if d2 == 0 && within(p2x, p2y, q1x, q1y, q2x, q2y) { return true }
        if d3 == 0 && within(q1x, q1y, p1x, p1y, p2x, p2y) { return true }
        if d4 == 0 && within(q2x, q2y, p1x, p1y, p2x, p2y) { return true }
        return false
    }

    /// True when `(x, y)` lies in the closed box of the segment (a point
    /// already known to be on its line is then on the segment).
    @inline(__always)
    static func within(
        _ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double
    ) -> Bool {
        x >= min(x1, x2) && x <= max(x1, x2) && y >= min(y1, y2) && y <= max(y1, y2)
    }
}
