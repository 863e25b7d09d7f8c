/// The exact sign of the orientation determinant of three points given as
/// `Double`s: on which side of the line a→b the point c lies.
///
/// A floating-point filter answers almost every call: the determinant in
/// doubles with Shewchuk's a-priori error bound (ccwerrboundA = (3 + 16ε)ε,
/// J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast
/// Robust Geometric Predicates", Discrete & Computational Geometry 18, 1997,
/// §4.2). When the rounded value is within that bound of zero, the
/// determinant is expanded into six products of input coordinates, each
/// split exactly into two doubles with a fused multiply-add, and the twelve
/// terms are summed into a nonoverlapping expansion (Two-Sum, Shewchuk §2),
/// whose most significant component carries the exact sign.
///
/// Exact for every pair of finite doubles whose products neither overflow
/// nor fall into the subnormal range (|products| ≥ 2⁻⁹⁶⁹), i.e. for every
/// longitude and latitude that is 0 or larger than about 1e-146 in
/// magnitude: all coordinates fleetd meets.
public enum Orientation {
    /// ε = 2⁻⁵³, the unit round-off of `Double`.
    static let epsilon = 0x1p-53
    /// Shewchuk's ccwerrboundA.
    static let errorBound = (3 + 16 * epsilon) * epsilon

    /// +1 when a→b→c turns counter-clockwise (c left of a→b, x east, y
    /// north), −1 clockwise, 0 exactly collinear.
    @inline(__always)
    public static func sign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int {
        let left = (ax - cx) * (by - cy)
        let right = (ay - cy) * (bx - cx)
        let det = left - right
        let bound = errorBound * (abs(left) + abs(right))
        if det > bound { return 1 }
        if -det > bound { return -1 }
        return exactSign(ax, ay, bx, by, cx, cy)
    }

    /// The exact sign, by expansion arithmetic (the slow path of `sign`).
    static func exactSign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int {
        // (ax − cx)(by − cy) − (ay − cy)(bx − cx)
        //   = ax·by − ax·cy − cx·by − ay·bx + ay·cx + cy·bx   (cx·cy cancels)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 12) { parts in
            var count = 0
            for (a, b) in [(ax, by), (-ax, cy), (-cx, by), (-ay, bx), (ay, cx), (cy, bx)] {
                // a·b exactly: the rounded product and its error (by FMA).
                let p = a * b
                grow(parts, &count, (-p).addingProduct(a, b))
                grow(parts, &count, p)
            }
            guard count > 0 else { return 0 }
            return parts[count - 1] > 0 ? 1 : -1
        }
    }

    /// Adds `b` exactly to the expansion `e[0..<count]` (nonoverlapping
    /// components in increasing order of magnitude, zeros dropped):
    /// Shewchuk's Grow-Expansion with zero elimination. The sum's sign is
    /// its last component's.
    @inline(__always)
    static func grow(_ e: UnsafeMutableBufferPointer<Double>, _ count: inout Int, _ b: Double) {
        guard b != 0 else { return }
        var q = b
        var n = 0
        for i in 0..<count {
            // Two-Sum: q + e[i] = s + r exactly.
            let s = q + e[i]
            let bv = s - q
            let av = s - bv
            let r = (q - av) + (e[i] - bv)
            q = s
            if r != 0 {
                e[n] = r
                n += 1
            }
        }
        if q != 0 {
            e[n] = q
            n += 1
        }
        count = n
    }
}
