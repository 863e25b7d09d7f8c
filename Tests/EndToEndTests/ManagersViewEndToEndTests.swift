import FleetModel
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

@Suite(.serialized, .offPool) struct ManagersViewEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    @Test func alertFiltersAndDaemonStatus() throws {
        let d = try DaemonProcess(
            fences: depotFences, tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0")
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        // Two vehicles each enter and leave the depot.
        var seq = 0
        for (k, device) in ["a-1", "b-2"].enumerated() {
            for (i, lat) in [47.9, 48.05, 48.2].enumerated() {
                seq += 1
                let t = t0 + Int64(k) * 100_000 + Int64(i) * 10_000
                #expect(
                    exchange(client, [fixLine(seq, t, lat: lat, lon: 11.05, device: device)])?.acked
                        == [Int64(seq)])
            }
        }
        client.send(Array("garbage".utf8))
        #expect(try d.fleetctl("alerts").count == 4)
        #expect(
            try d.fleetctl("alerts", ["--device", "b-2"]).map { $0["device"] as? String } == [
                "b-2", "b-2",
            ])
        #expect(
            try d.fleetctl("alerts", ["--type", "geofence_exit"]).map { $0["device"] as? String }
                == ["a-1", "b-2"])
        #expect(try d.fleetctl("alerts", ["--since", "2"]).map { $0["id"] as? Int } == [3, 4])
        #expect(
            try d.fleetctl("alerts", ["--since", "2023-11-14T22:15:00Z"]).map {
                $0["device"] as? String
            } == ["b-2", "b-2"])
        let bad = try runTool(
            try Binaries.path("fleetctl"), ["alerts", "--db", d.database, "--type", "nope"])
        #expect(bad.status != 0 && bad.err.contains("not an alert type"))

        // The status file: rewritten every second while running.
        Thread.sleep(forTimeInterval: 1.5)
        let status = try d.fleetctl("status")
        #expect(status.first?["state"] as? String == "running")
        #expect(status.first?["fixes_stored"] as? Int == 6)
        #expect((status.first?["rejected"] as? [String: Any])?["json/json_syntax"] as? Int == 1)
        let human = try runTool(try Binaries.path("fleetctl"), ["status", "--db", d.database])
        #expect(
            human.status == 0 && human.out.contains("fleetd running")
                && human.out.contains("json/json_syntax: 1"))
        #expect(d.stop() == 0)
        let after = try runTool(try Binaries.path("fleetctl"), ["status", "--db", d.database])
        #expect(after.out.contains("fleetd stopped"))
    }

    @Test func alertLogIsAppendedAfterCommitAndReopenedOnSIGHUP() throws {
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-e2e-log-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let log = dir.appendingPathComponent("alerts.jsonl").path
        let d = try DaemonProcess(
            fences: depotFences,
            extraConfig: "[alerts]\nlog_file = \"\(log)\"\n",
            dir: dir, tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0")
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        func lines(_ path: String) -> [[String: Any]] {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
        }
        #expect(exchange(client, [fixLine(1, t0, lat: 48.05, lon: 11.05)])?.acked == [1])
        #expect(exchange(client, [fixLine(2, t0 + 10_000, lat: 48.3, lon: 11.05)])?.acked == [2])
        // The lines are written right after the commit that made the reply possible.
        #expect(lines(log).map { $0["type"] as? String } == ["geofence_enter", "geofence_exit"])
        #expect(lines(log).map { $0["id"] as? Int } == [1, 2])
        // Out at latitude 48.1: a fifth of the way from 48.05 to 48.3.
        #expect(lines(log).last?["duration_s"] as? Int == 2)
        // logrotate: move the file away, SIGHUP, and new alerts go to a new file.
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        kill(d.process.processIdentifier, SIGHUP)
        #expect(d.notify.waitFor("READY=1", timeout: 5) != nil)
        #expect(exchange(client, [fixLine(3, t0 + 20_000, lat: 48.05, lon: 11.05)])?.acked == [3])
        #expect(lines(log).map { $0["id"] as? Int } == [3])
        #expect(lines(log + ".1").count == 2)
        #expect(d.stop() == 0)
    }

    @Test func anInvalidFencesFileOnReloadKeepsTheOldFences() throws {
        let d = try DaemonProcess(fences: depotFences)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        // Break the file, then SIGHUP: the daemon says why and keeps the depot.
        try
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0]]]}}]}"#
            .write(
                toFile: d.dir.appendingPathComponent("fences.geojson").path, atomically: true,
                encoding: .utf8)
        kill(d.process.processIdentifier, SIGHUP)
        #expect(d.notify.waitFor("READY=1", timeout: 5) != nil)
        #expect(exchange(client, [fixLine(1, t0, lat: 48.05, lon: 11.05)])?.acked == [1])
        #expect(try d.fleetctl("alerts").map { $0["fence"] as? String } == ["depot"])
        #expect(d.log.contains("fences not reloaded, keeping the old ones"))
        #expect(d.log.contains("a ring needs at least 4 positions"))
        // A valid file on reload replaces them.
        try
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"yard","geometry":{"type":"Polygon","coordinates":[[[11.0,48.0],[11.1,48.0],[11.1,48.1],[11.0,48.1],[11.0,48.0]]]}}]}"#
            .write(
                toFile: d.dir.appendingPathComponent("fences.geojson").path, atomically: true,
                encoding: .utf8)
        kill(d.process.processIdentifier, SIGHUP)
        #expect(d.notify.waitFor("READY=1", timeout: 5) != nil)
        #expect(exchange(client, [fixLine(2, t0 + 1000, lat: 48.06, lon: 11.05)])?.acked == [2])
        #expect(try d.fleetctl("alerts").map { $0["fence"] as? String } == ["depot", "yard"])
        #expect(d.stop() == 0)
    }

    /// Written while running, not only at the stop: within
    /// state_checkpoint_s of changing under load, and as soon as the daemon
    /// is idle otherwise (here the six fixes come one by one, with idle
    /// spells between them; with a 600 s interval only the idle path writes).
    @Test(arguments: [1, 600])
    func deviceStateIsCheckpointedWhileRunning(intervalS: Int) throws {
        let e = try DaemonProcess(fences: nil, storageExtra: "state_checkpoint_s = \(intervalS)")
        let client = try UDPClient(host: "127.0.0.1", port: e.port)
        let t0 = WallClock.system.nowMs() - 600_000
        for k in 0..<6 {
            let line = fixLine(k + 1, t0 + Int64(k) * 30_000, lat: 48 + Double(k) * 0.005, lon: 11)
            #expect(exchange(client, [line])?.acked == [Int64(k + 1)])
        }
        let deadline = Date().addingTimeInterval(6)
        var odometer = 0.0
        while odometer == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            odometer = try e.fleetctl("devices").first?["odometer_m"] as? Double ?? 0
        }
        #expect(odometer > 2000, "odometer \(odometer) m")
        #expect(e.process.isRunning)
        #expect(e.stop() == 0)
    }

    @Test func positionsOlderThanTheRetentionAreDeleted() throws {
        // A one-day window: a fix three days old goes within seconds, a recent one stays.
        let e = try DaemonProcess(fences: nil, storageExtra: "retain_days = 1")
        let client = try UDPClient(host: "127.0.0.1", port: e.port)
        let now = WallClock.system.nowMs()
        #expect(
            exchange(client, [fixLine(1, now - 3 * 86_400_000, lat: 48, lon: 11)])?.acked == [1])
        #expect(exchange(client, [fixLine(2, now - 60_000, lat: 48, lon: 11)])?.acked == [2])
        let deadline = Date().addingTimeInterval(10)
        var rows = try e.fleetctl("positions", ["--device", "truck-1"])
        while rows.count > 1, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            rows = try e.fleetctl("positions", ["--device", "truck-1"])
        }
        #expect(rows.count == 1)
        #expect(e.stop() == 0)
    }
}
