import ArgumentParser
import FleetModel
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `fleetbench reports`: the stops report, with the usage report over the
/// same data as its baseline, over a fleet's working day, as a manager
/// runs them (`fleetctl report … --csv`, a process each, its time and peak
/// memory from `wait4`). The day is written straight into a SQLite file:
/// `--devices` vehicles, each with `--trips` trips (one every 90 minutes
/// from 06:00 UTC, 45 minutes each, a fix at either end and one
/// mid-stop), every other stop with an idling episode.
struct ReportBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Time and peak memory of the stops and usage reports over a fleet's day.")

    @Option(help: "fleetctl to run the reports with.") var fleetctl: String
    @Option(help: "Vehicles.") var devices = 100_000
    @Option(help: "Trips per vehicle in the day.") var trips = 8
    @Option(help: "Runs of each report (alternating; the median is reported).") var runs = 3

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-reports-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("fleet.db").path
        let day = (WallClock.system.nowMs() / 86_400_000 - 2) * 86_400_000
        let built = Date()
        let counts = try Self.write(path: path, day: day, devices: devices, trips: trips)
        say(
            "the day: \(devices) vehicles, \(counts.trips) trips, \(counts.positions) positions, \(counts.alerts) idling alerts (written in \(String(format: "%.0f", Date().timeIntervalSince(built))) s)"
        )
        let period = [
            "--db", path, "--from", RFC3339.format(millis: day), "--to",
            RFC3339.format(millis: day + 86_400_000), "--csv",
        ]
        var results: [String: [(s: Double, mb: Double, rows: Int)]] = [:]
        for _ in 0..<runs {
            for kind in ["stops", "usage"] {
                results[kind, default: []].append(
                    try Self.measure(fleetctl, ["report", kind] + period))
            }
        }
        say("report\tmedian s\tmin–max s\tpeak RSS MB (median)\tCSV rows")
        for kind in ["stops", "usage"] {
            let r = results[kind] ?? []
            let s = r.map(\.s).sorted(), mb = r.map(\.mb).sorted()
            say(
                "\(kind)\t\(String(format: "%.2f", s[s.count / 2]))\t\(String(format: "%.2f–%.2f", s.first ?? 0, s.last ?? 0))\t\(String(format: "%.0f", mb[mb.count / 2]))\t\(r.first?.rows ?? 0)"
            )
        }
    }

    /// Writes the day through the daemon's own store, 20 000 rows a commit.
    static func write(path: String, day: Int64, devices: Int, trips: Int) throws -> (
        trips: Int, positions: Int, alerts: Int
    ) {
        let store = try SQLiteStore(path: path)
        var batch = WriteBatch()
        var counts = (trips: 0, positions: 0, alerts: 0)
        func flush() throws {
            _ = try store.commit(batch, committedMs: day + 86_400_000)
            batch = WriteBatch()
        }
        for d in 0..<devices {
            let id = String(350_000_000_000_000 + d)
            let lat0 = 48.4 + Double(d % 1000) * 1e-3, lon0 = 1.9 + Double(d / 1000) * 1e-3
            var odometer = 0.0
            func fix(_ t: Int64, _ lat: Double) {
                batch.positions.append(
                    PositionRow(
                        fix: Fix(device: id, time: t, lat: lat, lon: lon0, speedKmh: 0),
                        disposition: .accepted, receivedMs: t + 500))
                counts.positions += 1
            }
            for k in 0..<trips {
                let start = day + 6 * 3_600_000 + Int64(k) * 5_400_000
                let end = start + 2_700_000
                let (from, to) = (lat0 + Double(k % 2) * 0.1, lat0 + Double((k + 1) % 2) * 0.1)
                fix(start, from)
                fix(end, to)
                fix(end + 1_350_000, to)  // standing, half-way to the next trip
                batch.trips.append(
                    Trip(
                        device: id,
                        start: Waypoint(
                            time: start, lat: from, lon: lon0, odometerM: odometer, fixNo: 1),
                        end: Waypoint(
                            time: end, lat: to, lon: lon0, odometerM: odometer + 11_100, fixNo: 2),
                        startFence: nil, endFence: nil, maxSpeedKmh: 60))
                odometer += 11_100
                counts.trips += 1
                if k % 2 == 0 {
                    for (type, t) in [
                        (AlertType.idleStart, end + 60_000), (.idleEnd, end + 360_000),
                    ] {
                        batch.alerts.append(
                            Alert(type: type, device: id, time: t, fence: nil, lat: to, lon: lon0))
                        counts.alerts += 1
                    }
                }
            }
            if batch.positions.count >= 20_000 { try flush() }
        }
        try flush()
        return counts
    }

    /// Runs `tool` with `args`, its output to a pipe read to the end:
    /// seconds, peak RSS (MB, `ru_maxrss`) and lines written less the header.
    static func measure(_ tool: String, _ args: [String]) throws -> (
        s: Double, mb: Double, rows: Int
    ) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ValidationError("pipe: \(errno)") }
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv = ([tool] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let started = Date()
        let rc = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw ValidationError("cannot run \(tool): \(String(cString: strerror(rc)))")
        }
        var lines = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            for b in buffer[0..<n] where b == 0x0A { lines += 1 }
        }
        close(fds[0])
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Date().timeIntervalSince(started)
        guard status == 0 else {
            throw ValidationError("\(tool) \(args.joined(separator: " ")) failed")
        }
        return (seconds, Double(usage.ru_maxrss) / 1024, max(0, lines - 1))
    }
}
