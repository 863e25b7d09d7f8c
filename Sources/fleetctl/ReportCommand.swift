import ArgumentParser
import FleetModel
import FleetReports
import FleetStorage
import Foundation

/// `fleetctl report usage|stops --from T --to T [--device ID] [--json|--csv]`.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Reports over a period.",
        subcommands: [UsageCommand.self, StopsCommand.self])
}

/// `fleetctl report usage`: per vehicle and for the fleet, how much it was
/// used in a period (`UsageReport`'s rules).
struct UsageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract:
            "Per vehicle: distance, driving and parked time, trips, top speed, overspeed, fence visits; and fleet totals."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var period: PeriodOptions

    @OptionGroup var output: ReportOutputOptions

    func validate() throws { _ = try period.millis() }

    func run() throws {
        let (fromMs, toMs) = try period.millis()
        let reader = try database.reader(waitForIt: false)
        let report = try UsageInputs.report(
            reader, fromMs: fromMs, toMs: toMs, device: output.device,
            nowMs: WallClock.system.nowMs())
        guard !output.printed(json: report.jsonLine, csv: report.csv) else { return }
        print("Usage from \(TripsCommand.time(fromMs)) to \(TripsCommand.time(toMs))")
        let rows = (report.vehicles + [report.totals]).map { r in
            [
                r.device.map { id in r.name.map { "\(id) (\($0))" } ?? id } ?? "TOTAL",
                Output.fixed(r.distanceM / 1000, 2), TripsCommand.duration(r.drivingS),
                String(r.trips), TripsCommand.duration(r.parkedS), Output.fixed(r.maxSpeedKmh, 0),
                "\(r.overspeedEpisodes) / \(TripsCommand.duration(r.overspeedS))",
                "\(r.idleEpisodes) / \(TripsCommand.duration(r.idleS))",
                r.fenceVisits.map {
                    "\($0.fence) ×\($0.visits) \(TripsCommand.duration($0.insideS))"
                }
                .joined(separator: ", "),
            ]
        }
        let header = [
            "VEHICLE", "KM", "DRIVING", "TRIPS", "PARKED", "MAX KM/H", "OVERSPEED", "IDLING",
            "FENCE VISITS",
        ]
        for line in Output.table(header, rows, minimum: [20, 9, 10, 5, 10, 8, 14, 12, 12]) {
            print(line)
        }
        guard !report.drivers.isEmpty else { return }
        print("")
        let byDriver = report.drivers.map {
            [
                $0.driver, Output.fixed($0.distanceM / 1000, 2), TripsCommand.duration($0.drivingS),
                String($0.trips), $0.devices.joined(separator: ", "),
            ]
        }
        for line in Output.table(
            ["DRIVER", "KM", "DRIVING", "TRIPS", "VEHICLES"], byDriver, minimum: [16, 9, 10, 5, 8])
        {
            print(line)
        }
    }
}

/// What every report takes beside its period: `--device`, and `--json` or
/// `--csv` (neither: a table).
struct ReportOutputOptions: ParsableArguments {
    @Option(name: .long, help: "Only this device.")
    var device: String?

    @Flag(name: .long, help: "The report as one JSON object.")
    var json = false

    @Flag(name: .long, help: "The report as CSV (RFC 4180).")
    var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("--json and --csv: choose one") }
    }

    /// Prints the report as JSON or CSV when asked; false when a table is wanted.
    func printed(json line: @autoclosure () -> String, csv text: @autoclosure () -> String)
        -> Bool
    {
        if json {
            print(line())
            return true
        }
        if csv {
            print(text(), terminator: "")
            return true
        }
        return false
    }
}

/// `--from T --to T`: a period, `from <= t < to`.
struct PeriodOptions: ParsableArguments {
    @Option(name: .long, help: "Start of the period, RFC 3339 (2026-11-01T00:00:00Z).")
    var from: String

    @Option(name: .long, help: "End of the period (not included), RFC 3339.")
    var to: String

    /// The period's Unix ms; throws naming the bad flag.
    func millis() throws -> (from: Int64, to: Int64) {
        var out: [Int64] = []
        for (flag, value) in [("--from", from), ("--to", to)] {
            guard let ms = RFC3339.parse(Array(value.utf8)) else {
                throw ValidationError(
                    "\(flag) must be an RFC 3339 time with a zone (2026-11-01T00:00:00Z), found \"\(value)\""
                )
            }
            out.append(ms)
        }
        guard out[0] < out[1] else {
            throw ValidationError("--from (\(from)) must be before --to (\(to))")
        }
        return (out[0], out[1])
    }
}
