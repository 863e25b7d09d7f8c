import ArgumentParser
import FleetSQLite
import Foundation

/// `fleetctl backup DEST`: a consistent, checked copy of the live database.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract:
            "Copy the database while fleetd runs (SQLite's online backup), check the copy and say what it holds."
    )

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The copy's path (must not exist).") var destination: String

    func run() throws {
        let r: Backup.Report
        do {
            r = try Backup.run(from: database.db, to: destination)
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        print(
            String(
                format:
                    "backup %@: %.1f MB, integrity ok; %d positions, %d alerts, %d devices (%.1f s)",
                destination, Double(r.bytes) / 1_048_576, r.positions, r.alerts, r.devices,
                r.seconds))
    }
}
