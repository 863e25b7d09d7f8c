import ArgumentParser
import FleetGeo
import FleetModel
import FleetProtocols
import FleetSimCore
import Foundation

/// `fleetsim fleet`: a synthetic fleet with ground truth.
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract:
            "Simulate a fleet driving the bundled routes with GNSS noise, outliers, tunnels, coverage gaps, duplicate and reordered datagrams; write what really happened (--truth) for `fleetsim score`.",
        discussion: """
            Deterministic for a seed and start. Each vehicle parks at both ends of its course on the \
            edge of a yard fence of its own: write the fences fleetd must use with \
            --write-fences (and --dry-run to send nothing), start fleetd with them, then \
            run the same command without --dry-run. Fix times start at --start (fleetd \
            takes fixes from the past); --speedup 0 sends as fast as acknowledgements allow.
            """)

    @Option(help: "Vehicles.") var vehicles = 20
    @Option(help: "Simulated hours.") var hours = 24.0
    @Option(help: "Random seed.") var seed: UInt64 = 1
    @Option(
        help:
            "json, teltonika, nmea, osmand (phones: one HTTP request a fix), or mixed (json, teltonika and nmea, a third each)."
    )
    var proto = "mixed"
    @Option(
        help:
            "Fix time of the start: RFC 3339 or Unix ms (default: midnight UTC as many days ago as the scenario lasts, so that every fix is in the past and within fleetd's retention)."
    )
    var start: String?
    @Option(help: "GNSS error, metres (standard deviation per axis, correlated over 60 s).")
    var noise = 5.0
    @Option(help: "Share of fixes that are multipath outliers (100–600 m).") var outliers = 0.002
    @Option(help: "Share of journeys with a tunnel (1–4 min without a fix).") var tunnels = 0.3
    @Option(help: "Share of journeys with a coverage gap (5–40 min buffered, then sent).")
    var gaps = 0.15
    @Option(help: "Share of datagrams delivered twice.") var duplicates = 0.005
    @Option(help: "Share of datagrams delivered after the next one.") var reorders = 0.005
    @Option(help: "Speed limit for the truth's overspeed episodes, km/h (0: none).")
    var speedLimit = 80.0
    @Flag(help: "No yard fences (vehicles park away from fence edges).") var noYards = false
    @Option(help: "More fences (GeoJSON) for the truth, e.g. the config's geofences file.")
    var fences: String?
    @Option(help: "Route files (CSV or GPX) the vehicles drive; default the bundled routes.")
    var routes: [String] = []
    @Option(help: "Write the fences fleetd must use (the --fences ones and the yards), GeoJSON.")
    var writeFences: String?
    @Option(help: "Write the truth here (JSON).") var truth: String?
    @Flag(help: "Build the world and write the files; send nothing.") var dryRun = false
    @Option(help: "Fix time runs this many times faster than real time (0: as fast as possible).")
    var speedup = 0.0
    @Option(help: "fleetd's JSON UDP address.") var jsonTarget = "127.0.0.1:5055"
    @Option(help: "fleetd's Teltonika UDP address.") var teltonikaTarget = "127.0.0.1:5027"
    @Option(help: "fleetd's NMEA UDP address.") var nmeaTarget = "127.0.0.1:10110"
    @Option(help: "fleetd's OsmAnd HTTP address (TCP).") var osmandTarget = "127.0.0.1:5055"
    @Option(help: "fleetd's Teltonika TCP address.") var teltonikaTcpTarget = "127.0.0.1:5027"
    @Option(help: "fleetd's GT06 TCP address.") var gt06Target = "127.0.0.1:5023"
    @Option(help: "fleetd's H02 TCP address.") var h02Target = "127.0.0.1:5013"
    @Option(
        help:
            "Send from this many loopback addresses (127.0.0.2 on; vehicle k from the (k mod N)th), as trackers behind many addresses do: for a balancer hashing on the source address. Loopback targets only."
    )
    var sources = 1

    func scenario() throws -> FleetScenario {
        var s = FleetScenario()
        s.vehicles = vehicles
        s.hours = hours
        s.seed = seed
        s.proto = proto
        if let start {
            if let ms = Int64(start) {
                s.startMs = ms
            } else if let ms = RFC3339.parse(Array(start.utf8)) {
                s.startMs = ms
            } else {
                throw ValidationError("--start must be RFC 3339 or Unix ms, found \"\(start)\"")
            }
        } else {
            let day: Int64 = 86_400_000
            let today = WallClock.system.nowMs() / day * day
            s.startMs = today - Int64((hours / 24).rounded(.up)) * day
        }
        s.noiseM = noise
        s.outlierRate = outliers
        s.tunnelRate = tunnels
        s.gapRate = gaps
        s.duplicateRate = duplicates
        s.reorderRate = reorders
        s.speedLimitKmh = speedLimit
        s.yards = !noYards
        if let problem = s.problem { throw ValidationError(problem) }
        return s
    }

    /// The bundled routes: `Simulator/routes` under the working directory,
    /// else beside the installed program (`../share/fleetd/routes`).
    static func bundledRoutes() -> [String] {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let dirs = [
            "Simulator/routes",
            exe.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/fleetd/routes").path,
        ]
        for d in dirs {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? []
            let csv = files.filter { $0.hasSuffix(".csv") }.sorted()
            if !csv.isEmpty { return csv.map { "\(d)/\($0)" } }
        }
        return []
    }

    func run() throws {
        guard (1...250).contains(sources) else {
            throw ValidationError("--sources must be 1…250, found \(sources)")
        }
        let s = try scenario()
        let files = routes.isEmpty ? Self.bundledRoutes() : routes
        guard !files.isEmpty else {
            throw ValidationError("no routes: give --routes FILE (the bundled ones were not found)")
        }
        var loaded: [Route] = []
        for f in files {
            do { loaded.append(try RouteFile.load(f)) } catch { throw ValidationError("\(error)") }
        }
        var given: [Fence] = []
        var givenFeatures: [Any] = []
        if let fences {
            guard let data = FileManager.default.contents(atPath: fences) else {
                throw ValidationError("--fences \(fences): cannot read the file")
            }
            do {
                given = try GeoJSONFenceLoader.load(Array(data), file: fences)
            } catch {
                throw ValidationError("--fences \(error)")
            }
            let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            givenFeatures = doc?["features"] as? [Any] ?? []
        }
        let world = FleetWorld(scenario: s, routes: loaded, fences: given)
        let fixes = world.truth.vehicles.reduce(0) { $0 + $1.fixes }
        print(
            "fleetsim: \(s.vehicles) vehicles, \(s.hours) h, seed \(s.seed), \(s.proto): \(world.truth.trips.count) journeys, \(world.truth.fenceEvents.count) fence events, \(world.truth.overspeed.count) overspeed episodes, \(fixes) fixes"
        )
        if let path = writeFences {
            var features = givenFeatures
            for f in world.fences.dropFirst(given.count) {
                guard case .polygons(let polygons) = f.shape else { continue }
                let rings = polygons.map { p in
                    [zip(p.shell.xs, p.shell.ys).map { [$0, $1] }]
                }
                features.append([
                    "type": "Feature", "id": f.id, "properties": ["name": f.name],
                    "geometry": ["type": "Polygon", "coordinates": rings[0]],
                ])
            }
            let doc: [String: Any] = ["type": "FeatureCollection", "features": features]
            let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
            try data.write(to: URL(fileURLWithPath: path))
            print("fleetsim: wrote \(features.count) fences to \(path)")
        }
        if let path = truth {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys]
            try enc.encode(world.truth).write(to: URL(fileURLWithPath: path))
            print("fleetsim: wrote the truth to \(path)")
        }
        if dryRun { return }
        func target(_ text: String) throws -> (host: String, port: Int) {
            let t = try Target(text)
            return (t.host, t.port)
        }
        var targets = FleetSender.Targets()
        for p in TrackerProtocol.allCases {
            let text: String
            switch p {
            case .json: text = jsonTarget
            case .teltonika: text = teltonikaTarget
            case .nmea: text = nmeaTarget
            case .osmand: text = osmandTarget
            case .teltonikaTCP: text = teltonikaTcpTarget
            case .gt06: text = gt06Target
            case .h02: text = h02Target
            }
            targets[p] = try target(text)
        }
        let sender = try FleetSender(
            devices: world.devices, targets: targets,
            startMs: s.startMs, speedup: speedup, sources: sources)
        let r = sender.run()
        let rejected = r.rejected.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
        print(
            String(
                format:
                    "fleetsim: sent %d fixes in %d datagrams, %d acknowledged, %d resends, %d unacknowledged, in %.1f s",
                r.fixes, r.packets, r.acked, r.resent, r.unacked, r.elapsedS)
                + (rejected.isEmpty ? "" : "; rejected: \(rejected)"))
        if r.unacked > 0 { throw ExitCode(3) }
    }
}
