import FleetGeo
import Foundation

/// One vehicle through the scenario: drives and parks (`FleetWorld`),
/// records the truth from the noise-free path (every second while
/// driving) and what its device sends.
struct VehicleRun {
    let plan: FleetWorld.Plan
    let s: FleetScenario
    let index: FenceIndex
    /// The fences by id (the world's, built once for every vehicle).
    let fenceById: [String: Fence]
    let endMs: Int64
    var rng: SplitMix64

    private(set) var vehicle: FleetTruth.Vehicle
    private(set) var events: [FleetTruth.FenceEvent] = []
    private(set) var trips: [FleetTruth.TrueTrip] = []
    private(set) var overspeed: [FleetTruth.TrueOverspeed] = []
    private(set) var packets: [SimPacket] = []

    // Truth: fence visits under way, the overspeed episode under way.
    private var visits: [String: Visit] = [:]

    /// A stay in a fence: since when, whether the path got deeper than the
    /// margin, and when it left (while it is not yet beyond the margin).
    /// A visit counts when it went deep or lasted a minute: a corner
    /// clipped for a few seconds is no visit (fleetd promises none).
    private struct Visit {
        var enteredAt: Int64
        var deep: Bool
        var leftAt: Int64?

        func counts(until t: Int64) -> Bool { deep || t - enteredAt >= 60_000 }
    }
    private var episode: (start: Int64, lastOver: Int64, max: Double)?
    private var scratch: [Int32] = []

    // The device: its GNSS error (metres east, north), last fix time, the
    // backlog of a coverage gap and the live packet being filled.
    private var errE = 0.0
    private var errN = 0.0
    private var lastFix: Int64?
    private var gap: ClosedRange<Int64>?
    private var tunnel: ClosedRange<Int64>?
    private var backlog: [SimFix] = []
    private var live: [SimFix] = []

    init(
        plan: FleetWorld.Plan, scenario: FleetScenario, index: FenceIndex,
        fenceById: [String: Fence], endMs: Int64
    ) {
        self.plan = plan
        self.fenceById = fenceById
        self.s = scenario
        self.index = index
        self.endMs = endMs
        self.rng = plan.rng
        self.vehicle = FleetTruth.Vehicle(
            device: plan.device, proto: plan.proto.rawValue, intervalS: plan.interval)
    }

    private static func hourOfDay(_ ms: Int64) -> Double {
        Double(((ms % 86_400_000) + 86_400_000) % 86_400_000) / 3_600_000
    }

    /// When a vehicle that arrived at `t` sets off again.
    private mutating func nextDeparture(after t: Int64, first: Bool) -> Int64 {
        let h = Self.hourOfDay(t)
        if h >= 19 || h < 6 {
            // The next morning, 06:00–08:30.
            var morning = t - Int64(h * 3_600_000) + 6 * 3_600_000
            if h >= 19 { morning += 86_400_000 }
            return morning + Int64(rng.uniform(0...9_000_000))
        }
        return t + Int64(first ? rng.uniform(0...1_800_000) : rng.uniform(600_000...3_600_000))
    }

    mutating func run() {
        var t = s.startMs
        var forward = true
        let c = plan.course
        var at = c.vertex(0)
        var departure = nextDeparture(after: t, first: true)
        while true {
            if departure >= endMs {
                park(from: t, to: endMs, at: at)
                break
            }
            park(from: t, to: departure, at: at)
            var course = forward ? c : c.reversed()
            // A loop (it ends where it began) has no far end to turn at.
            let loop = c.x[0] == c.x[c.count - 1] && c.y[0] == c.y[c.count - 1]
            if rng.chance(0.2), !loop {
                // Three legs without a stop: U-turns 40 m short of the ends.
                let there = course.trimmedEnd(metres: 40)
                let back = there.reversed().trimmedEnd(metres: 40)
                course = there.joined(back).joined(course.trimmedStart(metres: 40))
            }
            let factor = rng.uniform(0.85...1.2)
            let samples = Self.drive(course, factor: factor, from: departure)
            // A journey is started only if it ends 15 min before the
            // scenario does (fleetd then has seen the stay that ends it).
            guard let arrival = samples.last?.time, arrival < endMs - 900_000 else {
                park(from: departure, to: endMs, at: at)
                break
            }
            drive(course, samples)
            forward.toggle()
            at = course.vertex(course.count - 1)
            t = arrival
            departure = nextDeparture(after: arrival, first: false)
        }
        closeEpisode()
        // Visits still under way at the end: their entries.
        for (id, v) in visits where v.counts(until: v.leftAt ?? endMs) {
            events.append(
                FleetTruth.FenceEvent(
                    device: plan.device, fence: id, type: "enter", timeMs: v.enteredAt))
        }
        flushLive()
        if let g = gap, !backlog.isEmpty { sendBacklog(due: g.upperBound) }
    }

    /// A second of the true path.
    struct Sample {
        var time: Int64
        var lat: Double
        var lon: Double
        var speedKmh: Double
        var courseDeg: Double
    }

    /// Samples every second along `course`, leaving at `from`: each segment
    /// at its recorded pace divided by `factor`; one recorded slower than
    /// 2 m/s is a stop (at most 60 s, none within 150 m of the last one: a
    /// bus crawling in a jam is driven through at 4 m/s) and then 4 m/s.
    static func drive(_ c: Course, factor: Double, from: Int64) -> [Sample] {
        var out: [Sample] = []
        var t = 0.0  // seconds since departure of the next sample
        var segStart = 0.0
        var sinceStop = Double.infinity  // metres driven since the last stop
        for k in 0..<(c.count - 1) {
            let dx = c.x[k + 1] - c.x[k]
            let dy = c.y[k + 1] - c.y[k]
            let len = hypot(dx, dy)
            var move = c.dt[k] / factor
            var wait = 0.0
            if len / c.dt[k] < 2 {
                move = len / 4
                if k > 0, k < c.count - 2, sinceStop >= 150 {
                    wait = min(60, c.dt[k] - move)
                    sinceStop = 0
                }
            }
            sinceStop += len
            let course = (atan2(dx, dy) * 180 / Double.pi + 360).truncatingRemainder(
                dividingBy: 360)
            let end = segStart + wait + move
            while t < end {
                let f = t < segStart + wait ? 0 : (t - segStart - wait) / move
                let p = c.position(east: c.x[k] + dx * f, north: c.y[k] + dy * f)
                out.append(
                    Sample(
                        time: from + Int64(t * 1000), lat: p.lat, lon: p.lon,
                        speedKmh: t < segStart + wait ? 0 : len / move * 3.6, courseDeg: course))
                t += 1
            }
            segStart = end
        }
        let last = c.vertex(c.count - 1)
        let end = Sample(
            time: from + Int64(segStart * 1000), lat: last.lat, lon: last.lon, speedKmh: 0,
            courseDeg: out.last?.courseDeg ?? 0)
        // Within a millisecond of the last whole second: that sample is the end.
        if let t = out.last?.time, t >= end.time { out.removeLast() }
        out.append(end)
        return out
    }

    /// Where a tunnel is: like real ones, on a nearly straight stretch
    /// (the path at most 2 % longer than the straight line through it),
    /// 60–240 s long, as long as the road stays straight (30 s at least).
    /// Up to 20 places are tried; nil when the journey has no such stretch.
    static func tunnel(in samples: [Sample], rng: inout SplitMix64) -> ClosedRange<Int64>? {
        guard samples.count > 300 else { return nil }
        for _ in 0..<20 {
            let a = Int(rng.uniform(0.1...0.8) * Double(samples.count))
            let want = Int(rng.uniform(60...240))
            var path = 0.0
            var b = a
            while b + 1 < samples.count, b - a < want {
                let p = samples[b]
                let q = samples[b + 1]
                let step = Geodesic.distance(lat1: p.lat, lon1: p.lon, lat2: q.lat, lon2: q.lon)
                let chord = Geodesic.distance(
                    lat1: samples[a].lat, lon1: samples[a].lon, lat2: q.lat, lon2: q.lon)
                if path + step > chord * 1.02 + 5 { break }
                path += step
                b += 1
            }
            if b - a >= 30 { return samples[a].time...samples[b].time }
        }
        return nil
    }

    // MARK: truth

    private mutating func observe(_ p: Sample) {
        let here = Coordinate(lat: p.lat, lon: p.lon)
        index.containing(here, into: &scratch)
        var now = Set<String>()
        for i in scratch { now.insert(index.fences[Int(i)].id) }
        for id in now {
            let fence = fenceById[id]!
            let deep = !fence.boundary(within: s.marginM, of: here)
            if var v = visits[id] {
                v.leftAt = nil  // back before going beyond the margin
                v.deep = v.deep || deep
                visits[id] = v
            } else {
                visits[id] = Visit(enteredAt: p.time, deep: deep)
            }
        }
        for (id, var v) in visits where !now.contains(id) {
            let left = v.leftAt ?? p.time
            v.leftAt = left
            let fence = fenceById[id]!
            if fence.boundary(within: s.marginM, of: here) {
                visits[id] = v
                continue
            }
            visits[id] = nil
            if v.counts(until: left) {
                events.append(
                    FleetTruth.FenceEvent(
                        device: plan.device, fence: id, type: "enter", timeMs: v.enteredAt))
                events.append(
                    FleetTruth.FenceEvent(
                        device: plan.device, fence: id, type: "exit", timeMs: left))
            }
        }
        // Overspeed.
        if s.speedLimitKmh > 0, p.speedKmh > s.speedLimitKmh {
            let minMs = Int64(s.overspeedMinS * 1000)
            if let e = episode, p.time - e.lastOver <= minMs {
                episode = (e.start, p.time, max(e.max, p.speedKmh))
            } else {
                closeEpisode()
                episode = (p.time, p.time, p.speedKmh)
            }
        } else if let e = episode, p.time - e.lastOver > Int64(s.overspeedMinS * 1000) {
            closeEpisode()
        }
    }

    private mutating func closeEpisode() {
        guard let e = episode else { return }
        episode = nil
        if Double(e.lastOver + 1000 - e.start) >= s.overspeedMinS * 1000 {
            overspeed.append(
                FleetTruth.TrueOverspeed(
                    device: plan.device, startMs: e.start, endMs: e.lastOver + 1000,
                    maxSpeedKmh: e.max))
        }
    }

    // MARK: driving and parking

    private mutating func drive(_ course: Course, _ samples: [Sample]) {
        guard let first = samples.first, let last = samples.last else { return }
        let distance = course.lengthM
        vehicle.distanceM += distance
        trips.append(
            FleetTruth.TrueTrip(
                device: plan.device, startMs: first.time, endMs: last.time, distanceM: distance,
                maxSpeedKmh: samples.map(\.speedKmh).max() ?? 0))
        // A tunnel, a coverage gap: somewhere in this journey.
        let span = last.time - first.time
        tunnel = nil
        if rng.chance(s.tunnelRate), span > 600_000 {
            tunnel = Self.tunnel(in: samples, rng: &rng)
        }
        if gap == nil, rng.chance(s.gapRate) {
            let a = first.time + Int64(rng.uniform(0.1...0.8) * Double(span))
            gap = a...min(endMs - 1, a + Int64(rng.uniform(300_000...2_400_000)))
        }
        // A fix every `interval` s, and (as trackers do, e.g. Teltonika's
        // "min angle") sooner when the heading turned 15° since the last
        // one, at 5 km/h or more: curves are recorded at any interval.
        let step = Int64(plan.interval) * 1000
        var next = first.time
        var heading = first.courseDeg
        for p in samples {
            observe(p)
            let turn = abs((p.courseDeg - heading + 540).truncatingRemainder(dividingBy: 360) - 180)
            if p.time >= next || p.time == last.time || (p.speedKmh >= 5 && turn >= 15) {
                report(p, driving: p.time != last.time)
                next = p.time + step
                heading = p.courseDeg
            }
        }
        closeEpisode()
    }

    private mutating func park(from: Int64, to: Int64, at: (lat: Double, lon: Double)) {
        guard to > from else { return }
        let p = Sample(time: from, lat: at.lat, lon: at.lon, speedKmh: 0, courseDeg: 0)
        observe(p)
        if index.fences.contains(where: {
            $0.id.hasPrefix("yard-\(plan.device)-")
                && $0.boundary(
                    within: max(s.yardEdgeM, s.yardInsideM) + 1,
                    of: Coordinate(lat: at.lat, lon: at.lon))
        }) {
            vehicle.parkedOnEdgeS += Double(to - from) / 1000
        }
        let step = Int64(s.parkedIntervalS) * 1000
        // A device reports as the scenario begins (it is switched on), then
        // every `parkedIntervalS` while parked.
        var t = from == s.startMs ? from : from + step
        while t < to {
            var q = p
            q.time = t
            report(q, driving: false)
            t += step
        }
    }

    // MARK: the device

    private mutating func report(_ p: Sample, driving: Bool) {
        if let tunnel, tunnel.contains(p.time) { return }
        // GNSS error: first-order Gauss–Markov per axis.
        let dt = Double(p.time - (lastFix ?? p.time)) / 1000
        lastFix = p.time
        let rho = s.noiseCorrelationS > 0 ? exp(-dt / s.noiseCorrelationS) : 0
        let kick = (1 - rho * rho).squareRoot() * s.noiseM
        errE = rho * errE + kick * rng.normal()
        errN = rho * errN + kick * rng.normal()
        var e = errE
        var n = errN
        // Reported accuracy: the radius of 68 % confidence (as Android's
        // Location.getAccuracy), 1.51 σ for a circular Gaussian error, ±25 %.
        var accuracy = max(2, 1.51 * s.noiseM * rng.uniform(0.8...1.25))
        if rng.chance(s.outlierRate) {
            let r = rng.uniform(100...600)
            let a = rng.uniform() * 2 * Double.pi
            e += r * cos(a)
            n += r * sin(a)
            if rng.chance(s.outliersReported) { accuracy = r * rng.uniform(0.8...1.5) }
            vehicle.outliers += 1
        }
        let phi = p.lat * Double.pi / 180
        let lat = p.lat + n / 111_132.954
        let lon = p.lon + e / (111_319.49 * cos(phi))
        let fix = SimFix(
            time: p.time, lat: lat, lon: lon,
            speedKmh: driving ? max(0, p.speedKmh + rng.normal()) : 0, courseDeg: p.courseDeg,
            accuracyM: (accuracy * 10).rounded() / 10, ignition: driving, trueLat: p.lat,
            trueLon: p.lon)
        vehicle.fixes += 1
        if let g = gap {
            if g.contains(p.time) {
                backlog.append(fix)
                return
            }
            if p.time > g.upperBound {
                flushLive()
                sendBacklog(due: g.upperBound)
                gap = nil
            }
        }
        live.append(fix)
        // A 1 s device sends five fixes a datagram; others each as it comes.
        if plan.interval > 1 || live.count >= 5 || !driving { flushLive() }
    }

    private mutating func flushLive() {
        guard let last = live.last else { return }
        emit(SimPacket(dueMs: last.time, fixes: live))
        live = []
    }

    private mutating func sendBacklog(due: Int64) {
        var k = 0
        while k < backlog.count {
            let chunk = Array(backlog[k..<min(backlog.count, k + max(1, s.backlogPerPacket))])
            vehicle.backlogged += chunk.count
            emit(SimPacket(dueMs: due, fixes: chunk, backlog: true))
            k += chunk.count
        }
        backlog = []
    }

    private mutating func emit(_ packet: SimPacket) {
        var p = packet
        if rng.chance(s.duplicateRate) {
            p.duplicate = true
            vehicle.duplicated += 1
        }
        if rng.chance(s.reorderRate) {
            p.reorder = true
            vehicle.reordered += 1
        }
        packets.append(p)
    }
}
