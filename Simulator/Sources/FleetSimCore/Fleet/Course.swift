import FleetGeo
import Foundation

/// A path a simulated vehicle drives: a recorded route's positions thinned
/// of parked scatter and jumps, smoothed into curves, with the recorded
/// time profile, in a local metric frame (metres east and north of an
/// origin, on the WGS 84 ellipsoid's radii of curvature there).
///
/// Pure: the same route gives the same course.
public struct Course: Sendable {
    /// Origin, degrees, and metres per degree of latitude and longitude there.
    public let lat0: Double
    public let lon0: Double
    let mLat: Double
    let mLon: Double
    /// Vertices, metres east and north of the origin.
    public private(set) var x: [Double]
    public private(set) var y: [Double]
    /// Seconds to drive from vertex k to vertex k + 1, as recorded.
    public private(set) var dt: [Double]

    /// Thins `route`: a point is kept once it is at least `spacingM` from
    /// the last kept one; one implying more than 200 km/h (a GNSS jump) is
    /// dropped. The kept points are then smoothed by two rounds of Chaikin's
    /// corner cutting (positions and times alike).
    public init(route: Route, spacingM: Double = 15) {
        let first = route.points[0]
        lat0 = first.lat
        lon0 = first.lon
        let phi = lat0 * Double.pi / 180
        let w = 1 - Geodesic.e2 * sin(phi) * sin(phi)
        mLat = Geodesic.a * (1 - Geodesic.e2) / (w * w.squareRoot()) * Double.pi / 180
        mLon = Geodesic.a / w.squareRoot() * cos(phi) * Double.pi / 180
        var px: [Double] = [0]
        var py: [Double] = [0]
        var pt: [Double] = [0]
        let t0 = first.time
        for p in route.points.dropFirst() {
            let ex = (p.lon - lon0) * mLon
            let ny = (p.lat - lat0) * mLat
            let d = hypot(ex - px[px.count - 1], ny - py[py.count - 1])
            let t = Double(p.time - t0) / 1000
            guard d >= spacingM else { continue }
            if d / max(1, t - pt[pt.count - 1]) * 3.6 > 200 { continue }
            px.append(ex)
            py.append(ny)
            pt.append(t)
        }
        for _ in 0..<2 { Self.chaikin(&px, &py, &pt) }
        x = px
        y = py
        dt = zip(pt.dropFirst(), pt).map { max(0.01, $0 - $1) }
    }

    private static func chaikin(_ x: inout [Double], _ y: inout [Double], _ t: inout [Double]) {
        guard x.count > 2 else { return }
        var nx = [x[0]]
        var ny = [y[0]]
        var nt = [t[0]]
        for k in 0..<(x.count - 1) {
            for f in [0.25, 0.75] {
                nx.append(x[k] + (x[k + 1] - x[k]) * f)
                ny.append(y[k] + (y[k + 1] - y[k]) * f)
                nt.append(t[k] + (t[k + 1] - t[k]) * f)
            }
        }
        nx.append(x[x.count - 1])
        ny.append(y[y.count - 1])
        nt.append(t[t.count - 1])
        (x, y, t) = (nx, ny, nt)
    }

    /// Vertices.
    public var count: Int { x.count }

    /// The position of a point given in metres east and north of the origin.
    public func position(east: Double, north: Double) -> (lat: Double, lon: Double) {
        (lat0 + north / mLat, lon0 + east / mLon)
    }

    /// The position of vertex `k`.
    public func vertex(_ k: Int) -> (lat: Double, lon: Double) { position(east: x[k], north: y[k]) }

    /// The same course moved by (`east`, `north`) metres.
    public func shifted(east: Double, north: Double) -> Course {
        var c = self
        c.x = x.map { $0 + east }
        c.y = y.map { $0 + north }
        return c
    }

    /// The course driven the other way (the time profile mirrored).
    public func reversed() -> Course {
        var c = self
        c.x = x.reversed()
        c.y = y.reversed()
        c.dt = dt.reversed()
        return c
    }

    /// This course, then `next` (which starts where this one ends).
    public func joined(_ next: Course) -> Course {
        var c = self
        c.x += next.x.dropFirst()
        c.y += next.y.dropFirst()
        c.dt += next.dt
        return c
    }

    /// The course without its last vertices: it ends at the last vertex at
    /// least `metres` (along the path) before the end, keeping two at least.
    public func trimmedEnd(metres: Double) -> Course {
        var keep = count
        var d = 0.0
        while keep > 2, d < metres {
            d += hypot(x[keep - 1] - x[keep - 2], y[keep - 1] - y[keep - 2])
            keep -= 1
        }
        var c = self
        c.x = Array(x[..<keep])
        c.y = Array(y[..<keep])
        c.dt = Array(dt[..<(keep - 1)])
        return c
    }

    /// The course without its first vertices (`trimmedEnd` from the start).
    public func trimmedStart(metres: Double) -> Course {
        reversed().trimmedEnd(metres: metres).reversed()
    }

    /// The course with its first vertex repeated at the end, driven at
    /// 8 m/s from the last one: a loop that ends where it began.
    public func closed() -> Course {
        let d = hypot(x[count - 1] - x[0], y[count - 1] - y[0])
        guard d > 0 else { return self }
        var c = self
        c.x.append(x[0])
        c.y.append(y[0])
        c.dt.append(max(1, d / 8))
        return c
    }

    /// A loop (closed, see `closed`) entered and left by a straight spur
    /// `metres` long at its first vertex, pointing away from both roads
    /// that meet there (the way the loop leaves and the way it comes back,
    /// each taken 50 m along): the course starts and ends at the spur's far
    /// end, driven at 6 m/s. A yard there is off the loop's road, which is
    /// driven both ways; a yard on the loop itself would lie across the road
    /// the vehicle arrives by.
    public func withSpur(metres: Double) -> Course {
        guard count > 3, metres > 0 else { return self }
        // A unit vector from the first vertex towards the loop 50 m along, either way.
        func towards(_ indices: [Int]) -> (Double, Double) {
            var k = indices[0]
            for i in indices where hypot(x[i] - x[0], y[i] - y[0]) >= 50 {
                k = i
                break
            }
            let d = max(1e-9, hypot(x[k] - x[0], y[k] - y[0]))
            return ((x[k] - x[0]) / d, (y[k] - y[0]) / d)
        }
        let out = towards(Array(1..<count))
        let back = towards(Array((0..<(count - 1)).reversed()))
        var ux = -(out.0 + back.0)
        var uy = -(out.1 + back.1)
        var len = hypot(ux, uy)
        if len < 0.2 {
            // The roads meet straight on: square to them, away from the loop's centre.
            let n = Double(count)
            let cx = x.reduce(0, +) / n - x[0]
            let cy = y.reduce(0, +) / n - y[0]
            (ux, uy) = (-out.1, out.0)
            if ux * cx + uy * cy > 0 { (ux, uy) = (-ux, -uy) }
            len = 1
        }
        ux /= len
        uy /= len
        let sx = x[0] + ux * metres
        let sy = y[0] + uy * metres
        var c = self
        c.x = [sx] + x + [sx]
        c.y = [sy] + y + [sy]
        c.dt = [metres / 6] + dt + [metres / 6]
        return c
    }

    /// Length along the WGS 84 geodesic through every vertex, metres.
    public var lengthM: Double {
        var s = 0.0
        for k in 1..<max(1, count) {
            let a = vertex(k - 1)
            let b = vertex(k)
            s += Geodesic.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
        }
        return s
    }
}
