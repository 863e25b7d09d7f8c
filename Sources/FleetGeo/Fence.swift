import FleetJSON
import FleetModel
import Foundation

/// One geofence: a shape, its identity, and the settings the tracker reads.
public final class Fence: Sendable {
    /// The fence's id: the feature's `id`, else `properties.id`, else `properties.name`.
    public let id: String
    /// `properties.name`, else the id.
    public let name: String
    public let shape: FenceShape
    /// `properties.speed_limit_kmh`: the speed limit inside, km/h (nil: none set).
    public let speedLimitKmh: Double?
    /// `properties.margin_m`: exit hysteresis in metres (nil: the config default).
    public let marginM: Double?
    /// `properties.dwell_s`: seconds a state must hold before its alert (nil: the default).
    public let dwellS: Double?
    /// Every property as the file gave it, interpreted or not.
    public let properties: JSONValue
    /// `properties.groups`: the groups of vehicles the fence is for (its
    /// alerts are raised for their vehicles only, and only users of those
    /// groups, or without a limit, see it); nil: every vehicle.
    public let groups: Set<String>?
    /// Box around the shape, widened for circles and corridors by their size.
    public let bounds: BoundingBox

    public init(
        id: String, name: String, shape: FenceShape, speedLimitKmh: Double? = nil,
        marginM: Double? = nil, dwellS: Double? = nil, properties: JSONValue = .object([]),
        groups: Set<String>? = nil
    ) {
        self.groups = groups
        self.id = id
        self.name = name
        self.shape = shape
        self.speedLimitKmh = speedLimitKmh
        self.marginM = marginM
        self.dwellS = dwellS
        self.properties = properties
        self.bounds = Fence.bounds(of: shape)
    }

    /// True when the position is inside the fence or on its boundary.
    public func contains(_ p: Coordinate) -> Bool {
        switch shape {
        case .polygons(let polygons):
            // Rings may run past ±180°: try the point's longitude and its copies 360° away.
            // The polygons are read in place (a loop over the array would
            // copy each, retaining its rings' arrays).
            return polygons.withUnsafeBufferPointer { polys in
                for k in 0..<3 {
                    let x = p.lon + (k == 0 ? 0 : k == 1 ? -360 : 360)
                    guard x >= bounds.minX, x <= bounds.maxX else { continue }
                    for i in polys.indices where polys[i].locate(x: x, y: p.lat) != .outside {
                        return true
                    }
                }
                return false
            }
        case .circle(let center, let radius):
            return Haversine.distance(center, p) <= radius
        case .corridor(let line, let half):
            return Fence.distance(from: p, toLine: line) <= half
        }
    }

    /// Distance in metres from `p` to the fence's boundary (0 on it).
    /// Used for exit hysteresis: how far outside (or inside) a vehicle is.
    public func distanceToBoundary(_ p: Coordinate) -> Double {
        switch shape {
        case .polygons(let polygons):
            let proj = LocalProjection(lat0: p.lat, lon0: p.lon)
            var best = Double.infinity
            for polygon in polygons {
                for ring in [polygon.shell] + polygon.holes {
                    for i in 0..<ring.edgeCount {
                        let d = proj.distanceToSegment(
                            lat1: ring.ys[i], lon1: ring.xs[i], lat2: ring.ys[i + 1],
                            lon2: ring.xs[i + 1])
                        best = min(best, d)
                    }
                }
            }
            return best
        case .circle(let center, let radius):
            return abs(Haversine.distance(center, p) - radius)
        case .corridor(let line, let half):
            return abs(Fence.distance(from: p, toLine: line) - half)
        }
    }

    /// True when `p` is at most `metres` from the fence's boundary, i.e.
    /// `distanceToBoundary(p) <= metres`, answered without measuring every
    /// edge: a polygon's rings skip runs of edges whose box is farther and
    /// stop at the first edge that near (`Ring.near`). Entry and exit
    /// hysteresis and the accuracy gate ask this of fences a fix enters or
    /// has just left.
    public func boundary(within metres: Double, of p: Coordinate) -> Bool {
        switch shape {
        case .polygons(let polygons):
            let proj = LocalProjection(lat0: p.lat, lon0: p.lon)
            let limit2 = metres * metres
            return polygons.withUnsafeBufferPointer { polys in
                polys.indices.contains { polys[$0].near(proj, within: limit2) }
            }
        case .circle, .corridor:
            return distanceToBoundary(p) <= metres
        }
    }

    /// True when the straight segment a→b (lon/lat, taken the short way
    /// across ±180°) touches the fence: an end inside, or an edge crossed.
    public func intersects(_ a: Coordinate, _ b: Coordinate) -> Bool {
        if contains(a) || contains(b) { return true }
        switch shape {
        case .polygons(let polygons):
            for (p, q) in FenceIndex.pieces(a, b) {
                for shift in FenceIndex.wrapShifts(bounds) {
                    let px = p.lon - shift
                    let qx = q.lon - shift
                    for polygon in polygons {
                        for ring in [polygon.shell] + polygon.holes {
                            for i in 0..<ring.edgeCount
                            where Segment.intersects(
                                px, p.lat, qx, q.lat, ring.xs[i], ring.ys[i], ring.xs[i + 1],
                                ring.ys[i + 1])
                            {
                                return true
                            }
                        }
                    }
                }
            }
            return false
        case .circle(let center, let radius):
            return Fence.distance(from: center, toLine: [a, b]) <= radius
        case .corridor(let line, let half):
            // Closest approach of two polylines: at a vertex of one, unless they cross.
            for i in 0..<(line.count - 1) {
                let proj = LocalProjection(lat0: line[i].lat, lon0: line[i].lon)
                let p1 = proj.project(lat: a.lat, lon: a.lon)
                let p2 = proj.project(lat: b.lat, lon: b.lon)
                let q1 = proj.project(lat: line[i].lat, lon: line[i].lon)
                let q2 = proj.project(lat: line[i + 1].lat, lon: line[i + 1].lon)
                if Segment.intersects(p1.x, p1.y, p2.x, p2.y, q1.x, q1.y, q2.x, q2.y) {
                    return true
                }
            }
            if Fence.distance(from: a, toLine: line) <= half
                || Fence.distance(from: b, toLine: line) <= half
            {
                return true
            }
            return line.contains { Fence.distance(from: $0, toLine: [a, b]) <= half }
        }
    }

    /// Distance in metres from `p` to the nearest point of a polyline.
    public static func distance(from p: Coordinate, toLine line: [Coordinate]) -> Double {
        let proj = LocalProjection(lat0: p.lat, lon0: p.lon)
        var best = Double.infinity
        for i in 0..<(line.count - 1) {
            best = min(
                best,
                proj.distanceToSegment(
                    lat1: line[i].lat, lon1: line[i].lon, lat2: line[i + 1].lat,
                    lon2: line[i + 1].lon))
        }
        return best
    }

    static func bounds(of shape: FenceShape) -> BoundingBox {
        switch shape {
        case .polygons(let polygons):
            var b = BoundingBox.empty
            for p in polygons { b.extend(p.bounds) }
            return b
        case .circle(let c, let r):
            return BoundingBox.around(c, metres: r)
        case .corridor(let line, let half):
            var b = BoundingBox.empty
            for p in line { b.extend(BoundingBox.around(p, metres: half)) }
            return b
        }
    }
}

extension BoundingBox {
    /// A box holding every position within `metres` of `c` (longitudes may run
    /// past ±180° near the antimeridian; near the poles it spans all longitudes).
    public static func around(_ c: Coordinate, metres: Double) -> BoundingBox {
        let dLat = metres / Haversine.earthRadius * 180 / Double.pi * 1.0001 + 1e-9
        let minLat = c.lat - dLat
        let maxLat = c.lat + dLat
        if minLat <= -90 || maxLat >= 90 {
            return BoundingBox(minX: -180, minY: max(-90, minLat), maxX: 180, maxY: min(90, maxLat))
        }
        let cosLat = cos(max(abs(minLat), abs(maxLat)) * Double.pi / 180)
        let dLon = min(180, dLat / max(cosLat, 1e-9))
        return BoundingBox(minX: c.lon - dLon, minY: minLat, maxX: c.lon + dLon, maxY: maxLat)
    }
}
