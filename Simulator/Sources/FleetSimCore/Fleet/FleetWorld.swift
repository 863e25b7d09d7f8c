import FleetGeo
import FleetProtocols
import Foundation

/// A simulated fleet: each vehicle's true path, the truth derived from it,
/// and what its device sends. Pure and deterministic: the same scenario,
/// routes and fences give the same world.
///
/// Vehicles: vehicle k drives the bundled route k mod R, moved by up to
/// 1.5 km in a direction of its own, back and forth (sometimes three legs
/// without a stop), each journey at 0.85–1.2 times the recorded pace, with
/// the recording's stops at lights (at most 60 s each, 150 m apart at least). Between journeys it
/// parks 10–60 min by day; after 19:00 until the next morning (06:00–08:30,
/// UTC). A journey that would end after the scenario is not started.
///
/// Devices: a fix every 1, 5, 10 or 30 s while driving (drawn per vehicle)
/// and at every turn of 15° (as trackers record curves),
/// every `parkedIntervalS` while parked; GNSS error as a first-order
/// Gauss–Markov process per axis; outliers; tunnels (no fix); coverage gaps
/// (fixes buffered, then sent oldest first in packets of up to
/// `backlogPerPacket`); a 1 s device sends its fixes five to a datagram.
public struct FleetWorld: Sendable {
    public let scenario: FleetScenario
    /// The fences the truth was computed against: the given ones, then the yards.
    public let fences: [Fence]
    public let truth: FleetTruth
    public let devices: [SimDevice]

    /// Builds the world. `routes` must not be empty.
    public init(scenario: FleetScenario, routes: [Route], fences given: [Fence]) {
        self.scenario = scenario
        let courses = routes.map { Course(route: $0) }
        var plans: [Plan] = []
        var fences = given
        // What is placed so far, per route: courses and yards, so that a
        // vehicle's yards lie off every other vehicle's path and its path
        // off every other vehicle's yards (a depot is off the road others
        // drive; a yard on a road would be a pass-through fence, which the
        // bundled zones already are).
        var placed: [[(course: Course, yards: [Fence])]] = Array(
            repeating: [], count: courses.count)
        for k in 0..<scenario.vehicles {
            var rng = SplitMix64(seed: scenario.seed &* 0x9E37_79B9 &+ UInt64(k) &* 0x85EB_CA6B)
            let proto = scenario.proto(of: k)
            let device = SimEncoder.deviceID(proto, vehicle: k)
            let interval = [1, 5, 5, 10, 10, 30][Int(rng.next() % 6)]
            let route = k % courses.count
            var course = courses[route]
            var yards: [Fence] = []
            // Up to 60 draws, a quarter further afield after every 20 that fail; the last is kept.
            for attempt in 0..<60 {
                let angle = rng.uniform() * 2 * Double.pi
                let r = rng.uniform(0...1500) * (1 + Double(attempt / 20) * 0.25)
                course = courses[route].shifted(east: r * cos(angle), north: r * sin(angle))
                // A route that ends near where it began (t02 is a loop) is closed,
                // so the vehicle parks at one place, by one yard, at the end of
                // a spur off the loop.
                if hypot(
                    course.x[course.count - 1] - course.x[0],
                    course.y[course.count - 1] - course.y[0]) < 200
                {
                    course = course.closed().withSpur(metres: 150)
                }
                yards = []
                if scenario.yards {
                    // Both ends, or one when the route ends where it began (t02
                    // is a loop: two yards would overlap).
                    let n = course.count
                    let apart = hypot(
                        course.x[n - 1] - course.x[0], course.y[n - 1] - course.y[0])
                    for end in 0..<(apart < 200 ? 1 : 2) {
                        let inside = rng.chance(0.5)
                        yards.append(
                            Self.yard(
                                course: course, atEnd: end == 1, inside: inside,
                                edgeM: inside ? scenario.yardInsideM : scenario.yardEdgeM,
                                clearM: scenario.marginM + 10,
                                id: "yard-\(device)-\(end == 0 ? "a" : "b")"))
                    }
                }
                let clearM = scenario.marginM + 10
                let clear = placed[route].allSatisfy { other in
                    !yards.contains { Self.cuts(other.course, $0, clearM: clearM) }
                        && !other.yards.contains { Self.cuts(course, $0, clearM: clearM) }
                }
                if clear || !scenario.yards { break }
            }
            fences += yards
            placed[route].append((course, yards))
            plans.append(
                Plan(course: course, device: device, proto: proto, interval: interval, rng: rng))
        }
        self.fences = fences
        let index = FenceIndex(fences: fences)
        let byId = Dictionary(fences.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let endMs = scenario.startMs + Int64(scenario.hours * 3_600_000)
        var truth = FleetTruth(
            scenario: FleetTruth.Scenario(
                vehicles: scenario.vehicles, hours: scenario.hours, seed: scenario.seed,
                proto: scenario.proto, startMs: scenario.startMs, endMs: endMs,
                noiseM: scenario.noiseM, outlierRate: scenario.outlierRate,
                speedLimitKmh: scenario.speedLimitKmh, overspeedMinS: scenario.overspeedMinS,
                marginM: scenario.marginM, fences: fences.count))
        var devices: [SimDevice] = []
        for plan in plans {
            var v = VehicleRun(
                plan: plan, scenario: scenario, index: index, fenceById: byId, endMs: endMs)
            v.run()
            truth.vehicles.append(v.vehicle)
            truth.fenceEvents += v.events
            truth.trips += v.trips
            truth.overspeed += v.overspeed
            devices.append(SimDevice(device: plan.device, proto: plan.proto, packets: v.packets))
        }
        self.truth = truth
        self.devices = devices
    }

    /// A vehicle before it runs.
    struct Plan {
        var course: Course
        var device: String
        var proto: TrackerProtocol
        var interval: Int
        var rng: SplitMix64
    }

    /// Whether course `c` comes within `clearM` of yard `f` (or into it).
    /// Segments far from the yard are skipped; near ones are walked every 4 m.
    static func cuts(_ c: Course, _ f: Fence, clearM: Double) -> Bool {
        guard case .polygons(let polygons) = f.shape, let ring = polygons.first?.shell else {
            return false
        }
        // The yard's centre in the course's frame, and a radius around it.
        let n = Double(ring.xs.count)
        let cLat = ring.ys.reduce(0, +) / n
        let cLon = ring.xs.reduce(0, +) / n
        let cx = (cLon - c.lon0) * c.mLon
        let cy = (cLat - c.lat0) * c.mLat
        let reach = 80 + clearM
        for k in 0..<(c.count - 1) {
            let (ax, ay, bx, by) = (c.x[k], c.y[k], c.x[k + 1], c.y[k + 1])
            let len = hypot(bx - ax, by - ay)
            let u =
                len > 0
                ? max(0, min(1, ((cx - ax) * (bx - ax) + (cy - ay) * (by - ay)) / (len * len))) : 0
            guard hypot(ax + (bx - ax) * u - cx, ay + (by - ay) * u - cy) <= reach else { continue }
            let steps = max(1, Int(len / 4))
            for s in 0...steps {
                let t = Double(s) / Double(steps)
                let at = c.position(east: ax + (bx - ax) * t, north: ay + (by - ay) * t)
                let p = Coordinate(lat: at.lat, lon: at.lon)
                if f.contains(p) || f.boundary(within: clearM, of: p) { return true }
            }
        }
        return false
    }

    /// An 80 m square by which the vehicle parks at one end of its course,
    /// square to its approach: inside, the vehicle drives in through it and
    /// parks `edgeM` short of its far edge; outside, the square begins
    /// `edgeM` beyond where it parks. Of the four ways the square can face
    /// (ahead along the approach first, then to either side, then behind),
    /// the first that the course's own path does not cut otherwise is
    /// taken: going back along the path from the end, it leaves the square
    /// once (inside; outside, it is never in it), and 30 m later it stays
    /// more than `clearM` from it (a route whose end bends would otherwise
    /// clip its yard and park by it, which is a different test); round a
    /// loop, going back along it from either end (a loop is driven both
    /// ways, and arrives at its yard from the side it left by). If none is
    /// clear, the first.
    static func yard(
        course c: Course, atEnd: Bool, inside: Bool, edgeM: Double, clearM: Double, id: String
    ) -> Fence {
        let n = c.count
        let p = atEnd ? n - 1 : 0
        // Approach: from a vertex about 30 m back along the course.
        var q = atEnd ? n - 2 : 1
        while q > 0, q < n - 1, hypot(c.x[q] - c.x[p], c.y[q] - c.y[p]) < 30 {
            q += atEnd ? -1 : 1
        }
        var ux = c.x[p] - c.x[q]
        var uy = c.y[p] - c.y[q]
        let len = max(1e-9, hypot(ux, uy))
        ux /= len
        uy /= len
        // The path from the end backwards, as points every few metres.
        // A loop (it ends where it began) is also driven into from its other
        // end: its yard must be clear of the path from there too.
        let loop = c.x[0] == c.x[n - 1] && c.y[0] == c.y[n - 1]
        var paths: [[(lat: Double, lon: Double, along: Double)]] = []
        for backwards in loop ? [atEnd, !atEnd] : [atEnd] {
            var path: [(lat: Double, lon: Double, along: Double)] = []
            var along = 0.0
            var k = backwards ? n - 1 : 0
            while backwards ? k > 0 : k < n - 1 {
                let j = backwards ? k - 1 : k + 1
                let seg = hypot(c.x[j] - c.x[k], c.y[j] - c.y[k])
                let steps = max(1, Int(seg / 4))
                for s in 0..<steps {
                    let f = Double(s) / Double(steps)
                    let at = c.position(
                        east: c.x[k] + (c.x[j] - c.x[k]) * f,
                        north: c.y[k] + (c.y[j] - c.y[k]) * f)
                    path.append((at.lat, at.lon, along + seg * f))
                }
                along += seg
                k = j
            }
            paths.append(path)
        }
        func square(_ ux: Double, _ uy: Double) -> Fence {
            let (nx, ny) = (-uy, ux)
            // The edge it parks by, `edgeM` ahead of it; the square behind that
            // edge (inside) or beyond it (outside).
            let cx = c.x[p] + ux * edgeM
            let cy = c.y[p] + uy * edgeM
            let depth = inside ? -80.0 : 80
            let corners = [(-40.0, 0.0), (40, 0), (40, depth), (-40, depth), (-40, 0)].map {
                (s, t) in
                let at = c.position(east: cx + nx * s + ux * t, north: cy + ny * s + uy * t)
                return Coordinate(lat: at.lat, lon: at.lon)
            }
            return Fence(
                id: id, name: id, shape: .polygons([Polygon(shell: Ring(corners), holes: [])]))
        }
        func clear(_ f: Fence) -> Bool { paths.allSatisfy { clear(f, $0) } }
        func clear(_ f: Fence, _ path: [(lat: Double, lon: Double, along: Double)]) -> Bool {
            // Where (along the path) it is last inside: the end, for an
            // outside yard (which the path must never enter).
            var leftAt: Double? = inside ? nil : 0
            for pt in path {
                let at = Coordinate(lat: pt.lat, lon: pt.lon)
                let isIn = f.contains(at)
                guard let l = leftAt else {
                    if !isIn { leftAt = pt.along }
                    continue
                }
                if isIn { return false }  // back into it
                if pt.along > l + 30, f.boundary(within: clearM, of: at) { return false }
            }
            return true
        }
        let ways = [(ux, uy), (-uy, ux), (uy, -ux), (-ux, -uy)]
        for (wx, wy) in ways {
            let f = square(wx, wy)
            if clear(f) { return f }
        }
        return square(ux, uy)
    }
}
