/// Planar predicates the index uses on edges stored in its cell runs
/// (coordinates as `Double` bit patterns), exact (`Orientation`).
enum EdgeParity {
    /// Whether (x, y) is inside, given the edges that cross its cell
    /// (`n` edges as x1, y1, x2, y2 from `start`) and whether the cell's
    /// centre (cx, cy) is inside. A point on an edge is inside. Nil when the
    /// segment centre→point touches an edge at a vertex or runs along one:
    /// the caller then decides with the full test.
    @inline(__always)
    static func decide(
        _ x: Double, _ y: Double, _ cx: Double, _ cy: Double, _ e: UnsafeBufferPointer<UInt64>,
        _ start: Int,
        _ n: Int, refInside: Bool
    ) -> Bool? {
        var odd = false
        var degenerate = false
        var b = start
        for _ in 0..<n {
            let x1 = Double(bitPattern: e[b])
            let y1 = Double(bitPattern: e[b + 1])
            let x2 = Double(bitPattern: e[b + 2])
            let y2 = Double(bitPattern: e[b + 3])
            b += 4
            // Where the point lies against the edge's line; exactly on the edge counts as inside.
            let d4 = Orientation.sign(x1, y1, x2, y2, x, y)
            if d4 == 0, Segment.within(x, y, x1, y1, x2, y2) { return true }
            let d1 = Orientation.sign(cx, cy, x, y, x1, y1)
            let d2 = Orientation.sign(cx, cy, x, y, x2, y2)
            if d1 == 0 || d2 == 0 {
                if Segment.intersects(cx, cy, x, y, x1, y1, x2, y2) { degenerate = true }
                continue
            }
            if d1 == d2 { continue }
            let d3 = Orientation.sign(x1, y1, x2, y2, cx, cy)
            if d3 == 0 || d4 == 0 {
                degenerate = true
                continue
            }
            if d3 != d4 { odd.toggle() }
        }
        return degenerate ? nil : refInside != odd
    }

    /// Whether (x, y) is inside, for a cell whose boundary is one edge's
    /// chord (`IndexBuilder.oneSide`) or two edges meeting at a vertex
    /// (`IndexBuilder.wedge`: at `start`, A→V as x1, y1, x2, y2, then V→B).
    /// The wedge left of both edges is the intersection of their
    /// half-planes when A→V→B turns left (`wedgeBoth`), else their union;
    /// `leftInside`: that wedge is the inside, else its complement. One edge
    /// is the same test with the edge taken twice, so both kinds run the
    /// same instructions (no branch between them to mispredict). Nil on
    /// either line: the caller then uses `decide`.
    @inline(__always)
    static func sides(
        _ x: Double, _ y: Double, _ e: UnsafeBufferPointer<UInt64>, _ start: Int, _ flags: UInt8
    ) -> Bool? {
        let second = start + (flags & IndexBuilder.wedge != 0 ? 4 : 0)
        let s1 = Orientation.sign(
            Double(bitPattern: e[start]), Double(bitPattern: e[start + 1]),
            Double(bitPattern: e[start + 2]), Double(bitPattern: e[start + 3]), x, y)
        let s2 = Orientation.sign(
            Double(bitPattern: e[second]), Double(bitPattern: e[second + 1]),
            Double(bitPattern: e[second + 2]), Double(bitPattern: e[second + 3]), x, y)
        guard s1 != 0, s2 != 0 else { return nil }
        let l1 = s1 > 0
        let l2 = s2 > 0
        let inWedge = flags & IndexBuilder.wedgeBoth != 0 ? (l1 && l2) : (l1 || l2)
        return inWedge == (flags & IndexBuilder.leftInside != 0)
    }

    /// True when the closed segment touches the closed rectangle.
    @inline(__always)
    static func segmentTouchesRect(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ rx0: Double, _ ry0: Double,
        _ rx1: Double,
        _ ry1: Double
    ) -> Bool {
        if max(x1, x2) < rx0 || min(x1, x2) > rx1 || max(y1, y2) < ry0 || min(y1, y2) > ry1 {
            return false
        }
        if x1 >= rx0 && x1 <= rx1 && y1 >= ry0 && y1 <= ry1 { return true }
        if x2 >= rx0 && x2 <= rx1 && y2 >= ry0 && y2 <= ry1 { return true }
        // The boxes overlap: the segment misses the rectangle only if all four
        // corners lie strictly on one side of its line.
        let a = Orientation.sign(x1, y1, x2, y2, rx0, ry0)
        let b = Orientation.sign(x1, y1, x2, y2, rx1, ry0)
        let c = Orientation.sign(x1, y1, x2, y2, rx1, ry1)
        let d = Orientation.sign(x1, y1, x2, y2, rx0, ry1)
        if a > 0 && b > 0 && c > 0 && d > 0 { return false }
        if a < 0 && b < 0 && c < 0 && d < 0 { return false }
        return true
    }
}
