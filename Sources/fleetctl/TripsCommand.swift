import ArgumentParser
import FleetConfig
import FleetGeo
import FleetModel
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

/// `fleetctl trips [--device ID] [--from T] [--to T] [--open] [--json]`:
/// finished trips, or those under way.
struct TripsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trips",
        abstract:
            "Print finished trips by start time: where from and to (fences), distance, duration, speeds."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: "Only this device's trips.")
    var device: String?

    @Option(name: .long, help: "Only trips ending at or after this RFC 3339 time.")
    var from: String?

    @Option(name: .long, help: "Only trips starting before this RFC 3339 time.")
    var to: String?

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "List the trips under way instead (\"open\": true in JSON), from each device's last checkpointed state.",
            discussion:
                "A running fleetd checkpoints a device's state about state_checkpoint_s after it changes, at once when idle; the API's /trips has them as of the last commit. Start fences are named when the config (--config, or the installed one) names a fences file."
        ))
    var open = false

    func validate() throws {
        for (flag, value) in [("--from", from), ("--to", to)] {
            if let value, RFC3339.parse(Array(value.utf8)) == nil {
                throw ValidationError(
                    "\(flag) must be an RFC 3339 time with a zone (2026-11-21T08:00:00Z), found \"\(value)\""
                )
            }
        }
    }

    /// The trips under way that `filter` selects, by start time then device.
    func underWay(_ reader: any StoreReading, _ filter: TripFilter) throws -> [TripRecord] {
        let states = try reader.deviceStates(device: filter.device)
        var fences = FenceIndex(fences: [])
        if let config = database.config,
            let file = try? DaemonConfig.load(path: config).geofences.effectiveFile, !file.isEmpty,
            FileManager.default.fileExists(atPath: file)
        {
            fences = FenceIndex(fences: try loadFences(file))
        }
        let tracker = Tracker(fences: fences)
        let names = (try? reader.deviceNames()) ?? [:]
        return states.compactMap { device, state in
            tracker.openTrip(device: device, state: state, fences: true).map {
                TripRecord(open: $0, vehicle: names[device])
            }
        }
        .filter { t in
            (filter.fromMs.map { t.endTime >= $0 } ?? true)
                && (filter.toMs.map { t.startTime < $0 } ?? true)
        }
        .sorted { ($0.startTime, $0.device) < ($1.startTime, $1.device) }
    }

    func run() throws {
        let reader = try database.reader(waitForIt: false)
        let filter = TripFilter(
            device: device, fromMs: from.flatMap { RFC3339.parse(Array($0.utf8)) },
            toMs: to.flatMap { RFC3339.parse(Array($0.utf8)) })
        let trips =
            open ? try underWay(reader, filter) : try reader.trips(filter: filter, limit: 1_000_000)
        if json {
            for t in trips { print(t.jsonLine) }
            return
        }
        let rows = trips.map { t in
            [
                t.vehicle.map { "\(t.device) (\($0))" } ?? t.device, Self.time(t.startTime),
                Self.time(t.endTime),
                "\(t.startFence ?? "-") → \(t.open ? "(under way)" : t.endFence ?? "-")",
                Output.fixed(t.distanceM / 1000, 2), Self.duration(t.durationS),
                Output.fixed(t.maxSpeedKmh, 0),
            ]
        }
        let header = [
            "DEVICE", "START (UTC)", "END (UTC)", "FROM → TO", "KM", "DURATION", "MAX KM/H",
        ]
        for line in Output.table(header, rows, minimum: [20, 22, 22, 40, 9, 10, 8]) { print(line) }
    }

    /// RFC 3339 to the second, for the table.
    static func time(_ ms: Int64) -> String {
        let s = RFC3339.format(millis: ms)
        return s.hasSuffix(".000Z") ? String(s.dropLast(5)) + "Z" : s
    }

    /// `1h02m03s` / `4m05s` / `6s`.
    static func duration(_ seconds: Double) -> String {
        let t = Int(seconds.rounded())
        let h = t / 3600
        let m = t % 3600 / 60
        let s = t % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        if h > 0 { return "\(h)h\(two(m))m\(two(s))s" }
        if m > 0 { return "\(m)m\(two(s))s" }
        return "\(s)s"
    }
}
