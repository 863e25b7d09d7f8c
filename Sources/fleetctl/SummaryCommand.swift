import ArgumentParser
import FleetSQLite
import FleetStorage

/// `fleetctl summary [--json]`: what the database holds.
struct SummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Print how many devices, positions and alerts are stored."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .long, help: "One JSON object.")
    var json = false

    func run() throws {
        let reader = try database.reader(waitForIt: false)
        let c = try reader.counts()
        let byType = try reader.alertCountsByType()
        if json {
            let types = Output.object(byType.map { ($0.type, String($0.count)) })
            print(
                Output.object([
                    ("devices", String(c.devices)), ("positions", String(c.positions)),
                    ("alerts", String(c.alerts)), ("alerts_by_type", types),
                ]))
        } else {
            print("devices \(c.devices), positions stored \(c.positions), alerts \(c.alerts)")
            for t in byType { print("  \(t.type): \(t.count)") }
        }
    }
}
