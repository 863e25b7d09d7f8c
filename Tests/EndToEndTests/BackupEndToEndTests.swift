import FleetSimCore
import FleetTestSupport
import Foundation
import Synchronization
import Testing

/// `fleetctl backup` while fleetd ingests: the copy is whole, checked,
/// and readable by fleetctl; an existing destination is refused.
@Suite(.offPool) struct BackupEndToEndTests {
    /// Under the usual umask 022, what fleetd and fleetctl create is not
    /// readable by others: the database, its WAL, and a backup (0600 here).
    @Test func filesAreNotReadableByOthersWhateverTheUmask() throws {
        let umask022 = ["/bin/sh", "-c", "umask 022; exec \"$0\" \"$@\""]
        let d = try DaemonProcess(fences: depotFences, wrapper: umask022)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        #expect(exchange(client, [fixLine(1, 1_700_000_000_000, lat: 48.05, lon: 11.05)]) != nil)
        func mode(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions])
                as? Int
        }
        for path in [d.database, d.database + "-wal"] {
            let m = try #require(mode(path), "no \(path)")
            #expect(m & 0o007 == 0, "\(path) is \(String(m, radix: 8))")
        }
        let copy = d.dir.appendingPathComponent("copy.db").path
        let r = try runTool(
            umask022[0],
            Array(umask022.dropFirst()) + [
                try Binaries.path("fleetctl"), "backup", copy, "--db", d.database,
            ])
        #expect(r.status == 0, "\(r.err)")
        #expect(mode(copy) == 0o600, "the backup is \(String(mode(copy) ?? 0, radix: 8))")
        // A second backup to the same name is refused, the first kept.
        let again = try runTool(
            try Binaries.path("fleetctl"), ["backup", copy, "--db", d.database])
        #expect(again.status != 0 && again.err.contains("will not overwrite"), "\(again.err)")
        #expect(d.stop() == 0)
    }

    @Test func backsUpUnderLoadAndTheCopyOpens() throws {
        let d = try DaemonProcess(fences: depotFences)
        let port = d.port
        let t0: Int64 = 1_700_000_000_000
        // Load: a fix every few ms from another thread, acknowledged, during the backup.
        let stop = Atomic<Bool>(false)
        let acked = Atomic<Int>(0)
        let sender = Thread {
            guard let client = try? UDPClient(host: "127.0.0.1", port: port) else { return }
            var i = 0
            while !stop.load(ordering: .relaxed) {
                let lat = i % 2 == 0 ? 47.95 : 48.05
                if exchange(client, [fixLine(i + 1, t0 + Int64(i) * 1000, lat: lat, lon: 11.05)])
                    != nil
                {
                    acked.add(1, ordering: .relaxed)
                }
                i += 1
            }
        }
        sender.start()
        let deadline = Date().addingTimeInterval(30)
        while acked.load(ordering: .relaxed) < 200, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let copy = d.dir.appendingPathComponent("backup/fleetd-copy.db").path
        try FileManager.default.createDirectory(
            atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let ctl = try Binaries.path("fleetctl")
        let r = try runTool(ctl, ["backup", copy, "--db", d.database])
        let during = acked.load(ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.2)
        stop.store(true, ordering: .relaxed)
        while sender.isExecuting { Thread.sleep(forTimeInterval: 0.01) }
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("integrity ok"), "\(r.out)")
        #expect(acked.load(ordering: .relaxed) > during, "ingest stopped during the backup")

        // The copy opens with fleetctl and holds what was acknowledged before it.
        let positions = try runTool(
            ctl, ["positions", "--device", "truck-1", "--db", copy, "--json", "--limit", "1000000"])
        #expect(positions.status == 0, "\(positions.err)")
        let count = positions.out.split(separator: "\n").count
        #expect(count >= 200, "\(count) positions in the copy")
        let alerts = try runTool(ctl, ["alerts", "--db", copy, "--json"])
        #expect(alerts.status == 0 && !alerts.out.isEmpty)

        // Never over an existing file.
        let again = try runTool(ctl, ["backup", copy, "--db", d.database])
        #expect(again.status == 1 && again.err.contains("will not overwrite"), "\(again.err)")
        #expect(d.stop() == 0)
    }
}
