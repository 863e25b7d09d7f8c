import ArgumentParser
import FleetGeo
import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTracking
import Foundation

/// `fleetbench accuracy`: `fleetsim fleet`'s world tracked offline and
/// scored against its truth, in seconds rather than the minutes a paced run
/// through a daemon takes. Each device's datagrams are encoded and decoded
/// by the real wire formats and delivered as the network of the world
/// delivers them (a reordered one after the next, a duplicated one twice),
/// one `Tracker` over the world's fences with the daemon's default settings.
/// What it leaves out: the daemon's door (screening), resends and the
/// engine's receive times; `scripts/accuracy.sh` runs the same world through
/// a real fleetd for the figures that count.
struct AccuracyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract:
            "A simulated fleet tracked offline and scored against its truth (fence events, trips, mileage, overspeed)."
    )

    @Option(help: "Vehicles.") var vehicles = 60
    @Option(help: "Simulated hours.") var hours = 24.0
    @Option(help: "Random seed.") var seed: UInt64 = 1
    @Option(help: "Fences besides the yards (GeoJSON).") var fences = "config/geofences.geojson"
    @Option(help: "Route files; default Simulator/routes/*.csv.") var routes: [String] = []
    @Option(help: "Speed limit, km/h (the truth's and the tracker's).") var speedLimit = 80.0
    @Option(help: "GNSS error per axis, metres (the scenario's noise).") var noise = 5.0
    @Option(help: "Share of fixes that are multipath outliers.") var outliers = 0.002
    @Flag(help: "Run with the accuracy gate off as well.") var both = false
    @Flag(help: "Also print how much GNSS error a per-device Kalman filter removes (FilterStudy).")
    var filterStudy = false
    @Option(help: "With --filter-study: the way's modelled error times these (comma-separated).")
    var filterScales = "1,0.7,0.3"
    @Option(help: "tracking.accuracy_gate_factor (default: fleetd's).") var gateFactor: Double?
    @Flag(help: "List every missed true fence event and every phantom fence alert.")
    var misses = false
    @Option(help: "Print every fix of this device tracked between --from and --to (Unix ms).")
    var trace: String?
    @Option(help: "With --trace: from this fix time, Unix ms.") var from: Int64 = 0
    @Option(help: "With --trace: to this fix time, Unix ms.") var to: Int64 = .max

    func run() throws {
        var files = routes
        if files.isEmpty {
            let dir = "Simulator/routes"
            files = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
                .filter { $0.hasSuffix(".csv") }.sorted().map { "\(dir)/\($0)" }
        }
        guard !files.isEmpty else { throw ValidationError("no routes: give --routes FILE") }
        let loaded = try files.map { try RouteFile.load($0) }
        let given = try Workload.fences(fences)
        var s = FleetScenario()
        s.vehicles = vehicles
        s.hours = hours
        s.seed = seed
        s.speedLimitKmh = speedLimit
        s.noiseM = noise
        s.outlierRate = outliers
        if let problem = s.problem { throw ValidationError(problem) }
        let world = FleetWorld(scenario: s, routes: loaded, fences: given)
        let index = FenceIndex(fences: world.fences)
        if filterStudy {
            for scale in filterScales.split(separator: ",").compactMap({ Double($0) }) {
                var study = FilterStudy(scale: scale)
                study.run(world)
                say(study.text)
            }
        }
        for gate in both ? [true, false] : [true] {
            var settings = TrackerSettings()
            settings.speedLimitKmh = speedLimit
            settings.accuracyGate = gate
            if let gateFactor { settings.accuracyGateFactor = gateFactor }
            let traced = trace.map { (device: $0, from: from, to: to) }
            let (alerts, trips) = Self.track(
                world, index: index, settings: settings, trace: traced)
            let score = FleetScore(truth: world.truth, alerts: alerts, trips: trips)
            say("-- accuracy gate \(gate):")
            say(score.text)
            if misses { for line in score.misses { say(line) } }
        }
    }

    /// Every device's datagrams through its wire format and the tracker.
    static func track(
        _ world: FleetWorld, index: FenceIndex, settings: TrackerSettings,
        trace: (device: String, from: Int64, to: Int64)? = nil
    ) -> ([FleetScore.Alert], [FleetScore.Trip]) {
        var tracker = Tracker(fences: index, settings: settings)
        var alerts: [FleetScore.Alert] = []
        var trips: [FleetScore.Trip] = []
        let sender = WireSender(text: "127.0.0.1:9", ip: "127.0.0.1")
        for device in world.devices {
            // Simulated fleets are UDP and HTTP devices (`FleetScenario`).
            guard let format = device.proto.makeFormat() else { continue }
            var encoder = SimEncoder()
            var order: [Int] = []
            var i = 0
            let packets = device.packets
            while i < packets.count {
                if packets[i].reorder, i + 1 < packets.count {
                    order += [i + 1, i]
                    i += 2
                } else {
                    order.append(i)
                    i += 1
                }
            }
            var truthOf: [Int64: SimFix] = [:]
            if let t = trace, t.device == device.device {
                for p in packets { for f in p.fixes { truthOf[f.time / 1000 * 1000] = f } }
            }
            var state: DeviceState?
            var rewind: Rewind?
            // The device's fixes as fleetd stores them (one per time, the
            // first kept), for its trips' late detour (`LateDetour`).
            var stored: [Int64: LateDetour.Point] = [:]
            var deviceTrips: [Trip] = []
            for k in order {
                let p = packets[k]
                let now = p.dueMs
                var decoded: [WireDecoding]
                switch encoder.encode(device.proto, device: device.device, fixes: p.fixes) {
                case .datagram(_, let bytes):
                    decoded = bytes.withUnsafeBufferPointer {
                        [format.decode($0, sender: { sender }, nowMs: now)]
                    }
                case .requests(let targets):
                    // Each request's query, which the format reads as a form.
                    decoded = targets.map { target in
                        let query = target.split(separator: "?", maxSplits: 1).dropFirst().first
                        return Array((query ?? "").utf8).withUnsafeBufferPointer {
                            format.decode($0, sender: { sender }, nowMs: now)
                        }
                    }
                case .stream:
                    decoded = []  // TCP protocols have no format (skipped above)
                }
                decoded += format.flush(nowMs: now + 10_000)
                for _ in 0..<(p.duplicate ? 2 : 1) {
                    for d in decoded {
                        for fix in d.fixes {
                            let o = tracker.process(fix, state: &state, rewind: &rewind)
                            if fix.valid, o.disposition == .accepted || o.disposition == .late,
                                stored[fix.time] == nil
                            {
                                stored[fix.time] = LateDetour.Point(
                                    time: fix.time, lat: fix.lat, lon: fix.lon,
                                    accuracyM: fix.accuracyM, hdop: fix.extra?.hdop,
                                    late: o.disposition == .late)
                            }
                            if let t = trace, t.device == fix.device, fix.time >= t.from,
                                fix.time <= t.to
                            {
                                let motion = state?.motion?.isStill == true ? "still" : "moving"
                                let fences = (state?.fences ?? []).map {
                                    "\($0.fence):\($0.phase)"
                                }
                                let depths = Self.depths(
                                    of: fix, truth: truthOf[fix.time / 1000 * 1000], index: index)
                                say(
                                    "\(fix.time) \(fix.lat) \(fix.lon) acc=\(fix.accuracyM ?? -1) hdop=\(fix.extra?.hdop ?? -1) \(o.disposition) \(motion) \(fences) \(o.alerts.map { "\($0.type.rawValue) \($0.fence ?? "") \($0.time)" }) \(depths)"
                                )
                            }
                            for a in o.alerts {
                                alerts.append(
                                    FleetScore.Alert(
                                        device: a.device, type: a.type.rawValue, fence: a.fence,
                                        timeMs: a.time))
                            }
                            deviceTrips += o.trips
                        }
                    }
                }
            }
            // As the store does: each trip's distance with its late fixes' detour.
            let detour = LateDetour(settings)
            let points = stored.values.sorted { $0.time < $1.time }
            for t in deviceTrips {
                let inside = points.filter { $0.time >= t.start.time && $0.time <= t.end.time }
                trips.append(
                    FleetScore.Trip(
                        device: t.device, startMs: t.start.time, endMs: t.end.time,
                        distanceM: t.distanceM + detour.metres(inside),
                        maxSpeedKmh: t.maxSpeedKmh))
            }
        }
        return (alerts, trips)
    }

    /// For a trace: each fence within 60 m of the fix or of the true
    /// position, as `id fix/true` signed depths in metres (+ inside).
    static func depths(of fix: Fix, truth: SimFix?, index: FenceIndex) -> String {
        var parts: [String] = []
        let here = Coordinate(lat: fix.lat, lon: fix.lon)
        let real = truth.map { Coordinate(lat: $0.trueLat, lon: $0.trueLon) } ?? here
        for fence in index.fences
        where fence.boundary(within: 60, of: here) || fence.boundary(within: 60, of: real) {
            func depth(_ c: Coordinate) -> Int {
                let d = fence.distanceToBoundary(c)
                return Int((fence.contains(c) ? d : -d).rounded())
            }
            parts.append("\(fence.id) \(depth(here))/\(depth(real))")
        }
        return parts.joined(separator: ", ")
    }
}
