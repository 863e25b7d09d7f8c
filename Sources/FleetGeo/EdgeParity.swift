/// Planar predicates the index uses on edges stored as vertex indices.
enum EdgeParity {
    /// Parity of the crossings of segment a→b with the edges `refs` (edge i is
    /// vertex i → i + 1). Nil when the segment touches an edge at a vertex or
    /// runs along one: the caller then decides with the full test.
    @inline(__always)
    static func crossings(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ refs: ArraySlice<Int32>, _ vx: [Double],
        _ vy: [Double]
    ) -> Bool? {
        var odd = false
        for r in refs {
            let i = Int(r)
            let x1 = vx[i]
            let y1 = vy[i]
            let x2 = vx[i + 1]
            let y2 = vy[i + 1]
            let d1 = Segment.orient(ax, ay, bx, by, x1, y1)
            let d2 = Segment.orient(ax, ay, bx, by, x2, y2)
            if d1 == 0 || d2 == 0 {
                if Segment.intersects(ax, ay, bx, by, x1, y1, x2, y2) { return nil }
                continue
            }
            if (d1 > 0) == (d2 > 0) { continue }
            let d3 = Segment.orient(x1, y1, x2, y2, ax, ay)
            let d4 = Segment.orient(x1, y1, x2, y2, bx, by)
            if d3 == 0 || d4 == 0 { return nil }
            if (d3 > 0) != (d4 > 0) { odd.toggle() }
        }
        return odd
    }

    /// True when the closed segment touches the closed rectangle.
    @inline(__always)
    static func segmentTouchesRect(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ rx0: Double, _ ry0: Double, _ rx1: Double,
        _ ry1: Double
    ) -> Bool {
        if max(x1, x2) < rx0 || min(x1, x2) > rx1 || max(y1, y2) < ry0 || min(y1, y2) > ry1 { return false }
        if x1 >= rx0 && x1 <= rx1 && y1 >= ry0 && y1 <= ry1 { return true }
        if x2 >= rx0 && x2 <= rx1 && y2 >= ry0 && y2 <= ry1 { return true }
        // The boxes overlap: the segment misses the rectangle only if all four
        // corners lie strictly on one side of its line.
        let a = Segment.orient(x1, y1, x2, y2, rx0, ry0)
        let b = Segment.orient(x1, y1, x2, y2, rx1, ry0)
        let c = Segment.orient(x1, y1, x2, y2, rx1, ry1)
        let d = Segment.orient(x1, y1, x2, y2, rx0, ry1)
        if a > 0 && b > 0 && c > 0 && d > 0 { return false }
        if a < 0 && b < 0 && c < 0 && d < 0 { return false }
        return true
    }
}
