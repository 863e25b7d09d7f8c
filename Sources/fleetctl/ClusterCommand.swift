import ArgumentParser
import FleetModel
import FleetPostgres
import FleetStorage
import Foundation

/// `fleetctl cluster [--json]`: the nodes sharing a PostgreSQL database.
struct ClusterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract:
            "List the fleetd nodes sharing the PostgreSQL database: the devices each holds, its rate, its last heartbeat."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .long, help: "JSON Lines, one node a line.")
    var json = false

    func run() throws {
        guard case .postgresql(let settings) = try database.backend() else {
            throw Output.fail(
                "fleetctl cluster: \(database.db) is a SQLite database (one node); give --postgres URL or --config FILE of a node"
            )
        }
        let nodes: [ClusterNodeRecord]
        do {
            nodes = try PostgresReader(settings: settings, check: true).clusterNodes()
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        if json {
            for n in nodes { print(RecordCoding.line(n)) }
            return
        }
        let rows = nodes.map { n in
            [
                n.node, String(n.devices), Output.fixed(n.fixesPerSecond, 1),
                RFC3339.format(millis: n.heartbeatMs),
                Output.fixed(Double(n.heartbeatAgeMs) / 1000, 1),
                n.heartbeatAgeMs > 30_000 ? "gone?" : "up",
            ]
        }
        for line in Output.table(
            ["NODE", "DEVICES", "FIXES/S", "HEARTBEAT (UTC)", "AGE S", "STATE"], rows,
            minimum: [8, 8, 9, 21, 7, 6])
        {
            print(line)
        }
    }
}
