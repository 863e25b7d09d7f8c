import ArgumentParser
import FleetGeo
import FleetModel
import FleetSimCore
import FleetTracking
import Foundation

/// `fleetbench track`: the tracker alone (the engine's tracking stage, no
/// I/O) on one core. The devices move as `fleetsim load` plays them (10 m
/// per fix, one fix a second, heading by device), one fix per device per
/// round in device order, as they arrive at the daemon under load.
struct TrackBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Fixes tracked per second on one core (fences, alerts, trips, state).")

    @Option(help: "Fences (GeoJSON), e.g. fences10k.geojson from gen_workload.py.")
    var fences: String

    @Option(help: "Start points for the devices (id,lon,lat CSV).")
    var points: String

    @Option(help: "Devices.")
    var devices = 100_000

    @Option(help: "Rounds (one fix per device each) per timed pass.")
    var rounds = 3

    @Option(help: "Timed passes (the median is reported); the devices' tracks continue.")
    var runs = 5

    func run() throws {
        let index = FenceIndex(fences: try Workload.fences(fences))
        let starts = try Workload.points(points)
        guard !starts.isEmpty else { throw ValidationError("no points in \(points)") }
        let ids = (0..<devices).map { "35\(String(format: "%013d", $0))" }
        var tracker = Tracker(fences: index)
        var states: [String: DeviceState] = [:]
        states.reserveCapacity(devices)
        let t0 = WallClock.system.nowMs() - 86_400_000
        let points = starts.map { (lat: $0.lat, lon: $0.lon) }
        func fix(_ d: Int, _ k: Int) -> Fix {
            let at = LoadGenerator.position(device: d, fix: k, points: points)
            return Fix(
                device: ids[d], time: t0 + Int64(k) * 1000, lat: at.lat, lon: at.lon,
                speedKmh: 36, course: Double((d % 4) * 90))
        }
        var alerts = 0
        var round = 0
        // One pass: `rounds` fixes per device; returns seconds spent tracking.
        func pass() -> Double {
            var batch: [Fix] = []
            batch.reserveCapacity(devices)
            var spent = 0.0
            for _ in 0..<rounds {
                batch.removeAll(keepingCapacity: true)
                for d in 0..<devices { batch.append(fix(d, round)) }
                round += 1
                spent += Measure.seconds {
                    for f in batch {
                        alerts += tracker.process(f, state: &states[f.device]).alerts.count
                    }
                }
            }
            return spent
        }
        let first = pass()  // every device new: its first fences entered
        say(
            String(
                format:
                    "first pass (every device new at its first fix): %.0f fixes/s, %d devices, %d alerts",
                Double(devices * rounds) / first, devices, alerts))
        alerts = 0
        var times: [Double] = []
        for _ in 0..<runs { times.append(pass()) }
        let fixes = Double(devices * rounds)
        let t = Measure.median(times)
        say(
            String(
                format:
                    "steady: %.0f fixes/s on one core, %.2f µs/fix (median of %d passes of %.0f fixes; %.3f alerts/fix)",
                fixes / t, t / fixes * 1e6, runs, fixes, Double(alerts) / (fixes * Double(runs))))
    }
}
