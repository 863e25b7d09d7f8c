extension Ring {
    /// True when some edge of the ring is at most `√limit2` metres from
    /// `proj`'s reference point, measured in `proj` (the same answer, to the
    /// bit, as testing every edge with
    /// `LocalProjection.squaredDistanceToSegment(…) <= limit2`).
    ///
    /// When every vertex lies less than 180° of longitude from the
    /// reference, the projection needs no unwrapping and is affine, so an
    /// edge is no nearer than the box of its run (`chunkBounds`): runs whose
    /// box is farther than the limit (with a slack far above rounding) are
    /// skipped, and each vertex is projected once, not once per edge it
    /// ends. Otherwise every edge is measured as `LocalProjection` does.
    func near(_ proj: LocalProjection, within limit2: Double) -> Bool {
        let lon0 = proj.lon0
        let lat0 = proj.lat0
        guard bounds.minX - lon0 > -180, bounds.maxX - lon0 < 180 else {
            return xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    for i in 0..<(xs.count - 1)
                    where proj.squaredDistanceToSegment(
                        lat1: ys[i], lon1: xs[i], lat2: ys[i + 1], lon2: xs[i + 1]) <= limit2
                    {
                        return true
                    }
                    return false
                }
            }
        }
        let kx = proj.kx
        let ky = proj.ky
        // A run is skipped only when its box is farther than this: the box
        // and the edges are rounded alike to within ~1e-12 m at these spans.
        let skip = limit2 * (1 + 1e-9) + 1e-6
        return xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                for (c, box) in chunkBounds.enumerated() {
                    let bx = max(0, box.minX - lon0, lon0 - box.maxX) * kx
                    let by = max(0, box.minY - lat0, lat0 - box.maxY) * ky
                    if bx * bx + by * by > skip { continue }
                    let first = c * Self.chunkEdges
                    let last = min(first + Self.chunkEdges, xs.count - 1)
                    // Within ±180° the unwrapping of `project` changes nothing.
                    var ax = (xs[first] - lon0) * kx
                    var ay = (ys[first] - lat0) * ky
                    for i in (first + 1)...last {
                        let x = (xs[i] - lon0) * kx
                        let y = (ys[i] - lat0) * ky
                        if LocalProjection.squaredDistanceToSegment(ax, ay, x, y) <= limit2 {
                            return true
                        }
                        ax = x
                        ay = y
                    }
                }
                return false
            }
        }
    }
}
