import ArgumentParser
import FleetModel
import FleetReports
import FleetStorage
import Foundation

/// `fleetctl report stops`: where each vehicle stood still in a period, how
/// long, and how much of it idling (`StopsReport`'s rules).
struct StopsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stops",
        abstract: "Per vehicle: where it stood still between trips, how long, and how long idling.")

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var period: PeriodOptions

    @OptionGroup var output: ReportOutputOptions

    @Option(name: .long, help: "The shortest stop listed, seconds (0–31 536 000).")
    var min: Double = 300

    func validate() throws {
        _ = try period.millis()
        guard min.isFinite, (0...31_536_000).contains(min) else {
            throw ValidationError("--min must be 0 to 31536000 seconds, found \(min)")
        }
    }

    func run() throws {
        let (fromMs, toMs) = try period.millis()
        let reader = try database.reader(waitForIt: false)
        let report = try StopsInputs.report(
            reader, fromMs: fromMs, toMs: toMs, device: output.device, minS: min,
            nowMs: WallClock.system.nowMs())
        guard !output.printed(json: report.jsonLine, csv: report.csv) else { return }
        print(
            "Stops of \(TripsCommand.duration(min)) or longer from \(TripsCommand.time(fromMs)) to \(TripsCommand.time(toMs))"
        )
        let rows = report.stops.map { s in
            [
                s.name.map { "\(s.device) (\($0))" } ?? s.device, TripsCommand.time(s.startMs),
                s.ongoing ? "(still there)" : TripsCommand.time(s.endMs),
                TripsCommand.duration(s.durationS), TripsCommand.duration(s.idleS),
                "\(Output.fixed(s.lat, 5)), \(Output.fixed(s.lon, 5))", s.fence ?? "",
            ]
        }
        let header = ["VEHICLE", "FROM", "TO", "STOPPED", "IDLING", "WHERE", "FENCE"]
        for line in Output.table(header, rows, minimum: [20, 20, 20, 9, 9, 20, 8]) {
            print(line)
        }
        if report.stops.isEmpty { print("(no stops)") }
    }
}
