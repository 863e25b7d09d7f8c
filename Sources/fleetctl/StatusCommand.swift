import ArgumentParser
import FleetGeo
import FleetJSON
import FleetProtocols
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
        let path = database.db + ".status.json"
        guard let data = FileManager.default.contents(atPath: path),
            let doc = try? JSONReader.parseDocument(Array(data))
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
        func int(_ k: String) -> Int64 {
            if case .number(let n)? = doc[k] { return Int64(n) } else { return 0 }
        }
        func str(_ k: String) -> String {
            if case .string(let s)? = doc[k] { return s } else { return "" }
        }
        let age = Int64(Date().timeIntervalSince1970 * 1000) - int("time_ms")
        var state = str("state")
        let alive = kill(pid_t(int("pid")), 0) == 0
        if state != "stopped", age > 5000 || !alive {
            state = "not running (no update for \(age / 1000) s)"
        }
        print(
            "fleetd \(state), pid \(int("pid")), up since \(RFC3339.format(millis: int("started_ms")))"
        )
        print("  listening: \(str("listening"))")
        print(
            "  ingest: \(int("fixes_per_s")) fixes/s now; \(int("datagrams")) datagrams, \(int("fixes_in")) fixes in"
        )
        print(
            "  stored: \(int("fixes_stored")) fixes, \(int("alerts")) alerts, \(int("commits")) commits; queue \(int("queue_fixes")) fixes"
        )
        print("  device states not yet checkpointed: \(int("states_unwritten"))")
        let last = int("last_commit_ms")
        print("  last commit: \(last == 0 ? "none yet" : RFC3339.format(millis: last))")
        if case .string(let e)? = doc["storage_error"] {
            print("  STORAGE FAILING (not acknowledging): \(e)")
        }
        if case .object(let rejects)? = doc["rejected"], !rejects.isEmpty {
            print("  rejected:")
            for (k, v) in rejects { if case .number(let n) = v { print("    \(k): \(Int64(n))") } }
        }
    }
}
