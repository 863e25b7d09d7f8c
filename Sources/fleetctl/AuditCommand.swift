import ArgumentParser
import FleetModel
import FleetSQLite
import FleetStorage

/// `fleetctl audit`: every change made through the API or fleetctl, oldest first.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "List the changes made through the API and fleetctl: who, when, what.")

    @OptionGroup var database: DatabaseOptions
    @Flag(name: .long, help: "One JSON object per line.") var json = false
    @Option(help: "Only entries after this id.") var after: Int64 = 0

    func run() throws {
        let entries = try database.reader(waitForIt: false).audit(afterId: after, limit: 1_000_000)
        if json {
            for e in entries { print(RecordCoding.line(e)) }
            return
        }
        let rows = entries.map {
            [
                String($0.id), RFC3339.format(millis: $0.timeMs), $0.actor, $0.action, $0.target,
                $0.detail ?? "-",
            ]
        }
        for line in Output.table(
            ["ID", "TIME (UTC)", "WHO", "ACTION", "TARGET", "DETAIL"], rows,
            minimum: [4, 24, 16, 14, 16, 6])
        {
            print(line)
        }
    }
}
