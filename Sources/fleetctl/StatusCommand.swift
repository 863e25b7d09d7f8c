import ArgumentParser
import FleetModel
import FleetStorage
import Foundation

/// `fleetctl status [--json]`: what the running daemon is doing, from the
/// status file it rewrites every second beside its database.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "What the running fleetd is doing: rates, queue, rejections by reason, last commit.")

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .long, help: "Print the status file's JSON object as it is.")
    var json = false

    func run() throws {
        let path = DaemonStatus.path(database: database.db)
        guard let data = FileManager.default.contents(atPath: path),
            let s = try? RecordCoding.read(DaemonStatus.self, from: data)
        else {
            throw Output.fail(
                "fleetctl: no status at \(path): fleetd has not run with --db \(database.db)")
        }
        if json {
            print(
                String(decoding: data, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines))
            return
        }
        let age = WallClock.system.nowMs() - s.timeMs
        var state = s.state
        let alive = kill(pid_t(s.pid), 0) == 0
        if state != "stopped", age > 5000 || !alive {
            state = "not running (no update for \(age / 1000) s)"
        }
        print(
            "fleetd \(state), pid \(s.pid), up since \(RFC3339.format(millis: s.startedMs))"
        )
        print("  listening: \(s.listening)")
        print(
            "  ingest: \(s.fixesPerS) fixes/s now; \(s.datagrams) datagrams, \(s.fixesIn) fixes in"
        )
        print(
            "  stored: \(s.fixesStored) fixes, \(s.alerts) alerts, \(s.commits) commits; queue \(s.queueFixes) fixes"
        )
        print("  device states not yet checkpointed: \(s.statesUnwritten)")
        let last = s.lastCommitMs
        print("  last commit: \(last == 0 ? "none yet" : RFC3339.format(millis: last))")
        if let e = s.storageError {
            print("  STORAGE FAILING (not acknowledging): \(e)")
        }
        if !s.rejected.isEmpty {
            print("  rejected:")
            for (k, v) in s.rejected.sorted(by: { $0.key < $1.key }) { print("    \(k): \(v)") }
        }
    }
}
