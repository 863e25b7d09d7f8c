import FleetGeo
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
        for k in 0..<scenario.vehicles {
            var rng = SplitMix64(seed: scenario.seed &* 0x9E37_79B9 &+ UInt64(k) &* 0x85EB_CA6B)
            let angle = rng.uniform() * 2 * Double.pi
            let r = rng.uniform(0...1500)
            let course = courses[k % courses.count].shifted(
                east: r * cos(angle), north: r * sin(angle))
            let proto = scenario.proto(of: k)
            let device =
                proto == "teltonika"
                ? "3520000000" + String(format: "%05d", k % 100_000)
                : "sim-" + String(format: "%05d", k)
            let interval = [1, 5, 5, 10, 10, 30][Int(rng.next() % 6)]
            if scenario.yards {
                // Both ends, or one when the route ends where it began (t02
                // is a loop: two yards would overlap).
                let n = course.count
                let apart = hypot(course.x[n - 1] - course.x[0], course.y[n - 1] - course.y[0])
                for end in 0..<(apart < 200 ? 1 : 2) {
                    let inside = rng.chance(0.5)
                    fences.append(
                        Self.yard(
                            course: course, atEnd: end == 1, inside: inside,
                            edgeM: inside ? scenario.yardInsideM : scenario.yardEdgeM,
                            id: "yard-\(device)-\(end == 0 ? "a" : "b")"))
                }
            }
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
        var proto: String
        var interval: Int
        var rng: SplitMix64
    }

    /// An 80 m square by which the vehicle parks at one end of its course,
    /// square to its approach: inside, the vehicle drives in through it and
    /// parks `edgeM` short of its far edge; outside, the square begins
    /// `edgeM` beyond where it parks.
    static func yard(course c: Course, atEnd: Bool, inside: Bool, edgeM: Double, id: String)
        -> Fence
    {
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
        let (nx, ny) = (-uy, ux)
        // The edge it parks by, `edgeM` ahead of it; the square behind that
        // edge (inside) or beyond it (outside).
        let cx = c.x[p] + ux * edgeM
        let cy = c.y[p] + uy * edgeM
        let depth = inside ? -80.0 : 80
        let corners = [(-40.0, 0.0), (40, 0), (40, depth), (-40, depth), (-40, 0)].map { (s, t) in
            let e = cx + nx * s + ux * t
            let north = cy + ny * s + uy * t
            let at = c.position(east: e, north: north)
            return Coordinate(lat: at.lat, lon: at.lon)
        }
        return Fence(
            id: id, name: id, shape: .polygons([Polygon(shell: Ring(corners), holes: [])]))
    }
}
