import ArgumentParser
import FleetModel
import FleetProtocols
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

/// `fleetbench store`: the writer alone (group commits into a real SQLite
/// file, no network, no tracking) on one core. Fixes as Teltonika devices
/// send them (decoded from real packets; `--json`: as fleetd's JSON format
/// does, without device extras), one per device per round in
/// device order, committed `--batch` at a time; a share of the commits'
/// rows are device states, as the engine's checkpoints add them, and
/// alerts, as the tracker raises them.
struct StoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Fixes committed per second by the writer on one core (positions and states).")

    @Option(help: "Devices.")
    var devices = 100_000

    @Option(help: "Fixes per commit.")
    var batch = 1000

    @Option(
        help: "Device states written per fix (the engine's checkpoints: ~0.25 at 40 000 fixes/s).")
    var statesPerFix = 0.25

    @Option(
        help:
            "Alerts per fix (geofence enter/exit, some with a duration; the end-to-end workload raises ~0.2, twice that in bursts)."
    )
    var alertsPerFix = 0.0

    @Option(help: "Webhook subscriptions each alert is owed to (its outbox run names them all).")
    var webhooks = 0

    @Option(help: "Memberships per device state (the standard workload: ~20).")
    var memberships = 20

    @Option(
        help:
            "Distinct fences the alerts name (0: the memberships' own, as many as --memberships; the standard workload: 10 000, each alert of a fix a different one)."
    )
    var alertFences = 0

    @Flag(
        help:
            "Alerts indexed by (fence, id) as before schema v19, instead of by id slice: the cost of an alert before."
    )
    var plainFenceIndex = false

    @Flag(
        help:
            "Fixes as fleetd's JSON format sends them (no device extras; the ack harness's), not as Teltonika devices do."
    )
    var json = false

    @Option(help: "Rounds (one fix per device each) per timed pass.")
    var rounds = 2

    @Option(help: "Timed passes (the median is reported); the table grows from pass to pass.")
    var runs = 3

    @Flag(
        help:
            "Devices in a random order each round (default: in device order, as fleetsim load sends)."
    )
    var shuffle = false

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-store-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let writer = try SQLiteStore(path: dir.appendingPathComponent("store.db").path)
        if plainFenceIndex { try AlertSlices.restorePlainIndex(writer) }
        let t0 = WallClock.system.nowMs() - 86_400_000
        let ids = (0..<devices).map { String(350_000_000_000_000 + $0) }
        let fences = (0..<memberships).map {
            FenceMembership(fence: String(100 + $0 * 37), phase: .inside(since: t0))
        }
        var round = 0
        /// The fence of a device's `n`-th alert: one of the memberships',
        /// or one of `alertFences` spread as the standard workload's are
        /// (a fix's alerts in different fences, the fleet over all of them).
        func alertFence(_ d: Int, _ n: Int) -> String {
            guard alertFences > 0 else { return String(100 + (d + n) % memberships * 37) }
            return String(100 + (d &* 7_919 &+ n &* 104_729) % alertFences)
        }
        /// Device d's fix of round k, decoded from the packet the device sends.
        func fix(_ d: Int, _ k: Int) -> Fix {
            if json {
                return Fix(
                    device: ids[d], time: t0 + Int64(k) * 1000,
                    lat: 48.85 + Double(d % 1000) * 1e-3 + Double(k) * 1e-4,
                    lon: 2.35 + Double(d / 1000) * 1e-3, speedKmh: 54, course: 90, altM: 35)
            }
            var r = TeltonikaEncoder.Record(
                time: t0 + Int64(k) * 1000, lat: 48.85 + Double(d % 1000) * 1e-3 + Double(k) * 1e-4,
                lon: 2.35 + Double(d / 1000) * 1e-3)
            r.speedKmh = 36
            r.io = [(239, 1, 1), (66, 2, 12_600)]
            let packet = TeltonikaEncoder.udp(avlPacketId: 1, imei: ids[d], records: [r])
            guard case .success(let p) = TeltonikaDecoder.decode(packet) else {
                fatalError("encoder")
            }
            return p.fixes[0]
        }
        func pass() throws -> Double {
            var spent = 0.0
            var stateDebt = 0.0
            var alertDebt = 0.0
            for _ in 0..<rounds {
                var batches: [WriteBatch] = []
                var b = WriteBatch()
                var order = Array(0..<devices)
                if shuffle { order.shuffle() }
                for d in order {
                    let f = fix(d, round)
                    b.positions.append(
                        PositionRow(fix: f, disposition: .accepted, receivedMs: f.time))
                    alertDebt += alertsPerFix
                    while alertDebt >= 1 {
                        alertDebt -= 1
                        b.alerts.append(
                            Alert(
                                type: b.alerts.count % 2 == 0 ? .geofenceEnter : .geofenceExit,
                                device: f.device, time: f.time,
                                fence: alertFence(d, b.alerts.count),
                                lat: f.lat, lon: f.lon,
                                durationS: b.alerts.count % 2 == 0 ? nil : 120))
                        if webhooks > 0 {
                            // Every alert owed to every subscription: one run, as the
                            // commit stage makes it.
                            let k = b.alerts.count - 1
                            if let last = b.outbox.indices.last {
                                b.outbox[last].alerts = 0..<(k + 1)
                            } else {
                                b.outbox.append((k..<(k + 1), (0..<webhooks).map { "hook\($0)" }))
                            }
                        }
                    }
                    stateDebt += statesPerFix
                    if stateDebt >= 1 {
                        stateDebt -= 1
                        var s = DeviceState(
                            lastTime: f.time, lat: f.lat, lon: f.lon, fences: fences)
                        s.accepted = Int64(round + 1)
                        // The states of devices heard from earlier (those coming due):
                        // in the same order as the fixes.
                        b.states[ids[(d + devices / 2) % devices]] = s
                    }
                    if b.positions.count == batch {
                        batches.append(b)
                        b = WriteBatch()
                    }
                }
                if !b.positions.isEmpty { batches.append(b) }
                round += 1
                var failure: (any Error)?
                spent += Measure.seconds {
                    do {
                        for b in batches { try writer.commit(b, committedMs: t0) }
                    } catch { failure = error }
                }
                if let failure { throw failure }
            }
            return spent
        }
        let first = try pass()
        say(
            String(
                format: "first pass (every device new): %.0f fixes/s",
                Double(devices * rounds) / first))
        var times: [Double] = []
        var written: [Double] = []
        for _ in 0..<runs {
            let w0 = Measure.bytesWritten()
            times.append(try pass())
            written.append(Double(Measure.bytesWritten() - w0))
        }
        let fixes = Double(devices * rounds)
        let t = Measure.median(times)
        say(
            String(
                format:
                    "steady: %.0f fixes/s on one core, %.2f µs/fix (%d fixes, %.0f states and %.0f alerts per commit; median of %d passes of %.0f fixes)",
                fixes / t, t / fixes * 1e6, batch, Double(batch) * statesPerFix,
                Double(batch) * alertsPerFix, runs, fixes))
        say(
            String(
                format: "written: %.0f bytes/fix (WAL and checkpoints, write(2) bytes; median)",
                Measure.median(written) / fixes))
        if alertsPerFix > 0 {
            say(String(format: "alerts committed: %.0f/s", fixes * alertsPerFix / t))
        }
    }
}
