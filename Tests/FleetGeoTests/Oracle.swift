import Foundation

@testable import FleetGeo

/// The brute-force oracle: every fence, a plain crossing-number test written
/// here independently of the library (edges straight in lon/lat; a point on
/// an edge is inside; rings may run past ±180°).
enum Oracle {
    static func containing(_ fences: [Fence], _ p: Coordinate) -> [Int32] {
        fences.indices.filter { contains(fences[$0], p) }.map { Int32($0) }
    }

    static func contains(_ f: Fence, _ p: Coordinate) -> Bool {
        switch f.shape {
        case .polygons(let polygons):
            for x in [p.lon, p.lon - 360, p.lon + 360] {
                for poly in polygons {
                    var inside = false
                    var edge = false
                    for ring in [poly.shell] + poly.holes {
                        for i in 0..<(ring.xs.count - 1) {
                            let (x1, y1, x2, y2) = (
                                ring.xs[i], ring.ys[i], ring.xs[i + 1], ring.ys[i + 1]
                            )
                            if (y1 > p.lat) != (y2 > p.lat),
                                x < x1 + (p.lat - y1) * (x2 - x1) / (y2 - y1)
                            {
                                inside.toggle()
                            }
                            if onSegment(x, p.lat, x1, y1, x2, y2) { edge = true }
                        }
                    }
                    if inside || edge { return true }
                }
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

    static func onSegment(
        _ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double
    ) -> Bool {
        let t = 1e-12
        guard x >= min(x1, x2) - t, x <= max(x1, x2) + t, y >= min(y1, y2) - t, y <= max(y1, y2) + t
        else {
            return false
        }
        return abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) <= t
            * max(abs(x2 - x1), abs(y2 - y1), 1)
    }

    static func haversine(_ a: Coordinate, _ b: Coordinate) -> Double {
        let r = Double.pi / 180
        let h =
            pow(sin((b.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(b.lat * r)
            * pow(sin((b.lon - a.lon) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }
}
