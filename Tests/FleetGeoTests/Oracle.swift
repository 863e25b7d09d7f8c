import Foundation

@testable import FleetGeo

/// The brute-force oracle: every fence, a plain crossing-number test written
/// here independently of the library (edges straight in lon/lat; a point on
/// an edge is inside; rings may run past ±180°).
///
/// Polygons are decided exactly: their coordinates and the point's must lie
/// on a grid of 2⁻⁴⁰° (about 0.1 µm; `snap`), so each is an integer times
/// 2⁻⁴⁰ and the crossing test runs in `Int128` with no rounding at all.
enum Oracle {
    static let scale = 0x1p40

    /// `v` moved onto the 2⁻⁴⁰° grid (exact in a `Double` for |v| < 2¹²).
    static func snap(_ v: Double) -> Double { (v * scale).rounded() / scale }
    static func snap(_ p: Coordinate) -> Coordinate {
        Coordinate(lat: snap(p.lat), lon: snap(p.lon))
    }

    /// `v` in units of 2⁻⁴⁰°; stops the test if `v` is off the grid.
    static func grid(_ v: Double) -> Int128 {
        let s = v * scale
        precondition(s == s.rounded(), "the exact oracle needs coordinates on the 2^-40 grid: \(v)")
        return Int128(s)
    }

    /// Exactly inside the polygon or on its boundary.
    static func exactlyInside(_ poly: Polygon, _ x: Double, _ y: Double) -> Bool {
        let px = grid(x)
        let py = grid(y)
        var inside = false
        for ring in [poly.shell] + poly.holes {
            for i in 0..<(ring.xs.count - 1) {
                let x1 = grid(ring.xs[i])
                let y1 = grid(ring.ys[i])
                let x2 = grid(ring.xs[i + 1])
                let y2 = grid(ring.ys[i + 1])
                let cross = (x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)
                if cross == 0, px >= min(x1, x2), px <= max(x1, x2), py >= min(y1, y2),
                    py <= max(y1, y2)
                {
                    return true  // on an edge
                }
                // The ray east from the point crosses an edge straddling its
                // latitude with the point left of it going up, right going down.
                if (y1 > py) != (y2 > py), (y2 > y1) == (cross > 0) { inside.toggle() }
            }
        }
        return inside
    }

    static func containing(_ fences: [Fence], _ p: Coordinate) -> [Int32] {
        fences.indices.filter { contains(fences[$0], p) }.map { Int32($0) }
    }

    static func contains(_ f: Fence, _ p: Coordinate) -> Bool {
        switch f.shape {
        case .polygons(let polygons):
            for x in [p.lon, p.lon - 360, p.lon + 360] {
                for poly in polygons where exactlyInside(poly, x, p.lat) { return true }
            }
            return false
        case .circle(let c, let r):
            return haversine(c, p) <= r
        case .corridor(let line, let half):
            // Dense sampling is no oracle for a distance; use the library's
            // projection-free check: the nearest point on each segment, found by
            // ternary search on the haversine distance (convex along a short segment).
            for i in 0..<(line.count - 1) {
                var lo = 0.0
                var hi = 1.0
                func at(_ t: Double) -> Double {
                    var dl = line[i + 1].lon - line[i].lon
                    if dl > 180 { dl -= 360 }
                    if dl < -180 { dl += 360 }
                    return haversine(
                        Coordinate(
                            lat: line[i].lat + t * (line[i + 1].lat - line[i].lat),
                            lon: line[i].lon + t * dl), p)
                }
                for _ in 0..<100 {
                    let m1 = lo + (hi - lo) / 3
                    let m2 = hi - (hi - lo) / 3
                    if at(m1) < at(m2) { hi = m2 } else { lo = m1 }
                }
                if at((lo + hi) / 2) <= half * (1 + 1e-3) { return true }
            }
            return false
        }
    }

    static func haversine(_ a: Coordinate, _ b: Coordinate) -> Double {
        let r = Double.pi / 180
        let h =
            pow(sin((b.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(b.lat * r)
            * pow(sin((b.lon - a.lon) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }
}
