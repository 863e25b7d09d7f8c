import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// One box fence: lon 11.0…11.1, lat 48.0…48.1.
let depotFences = """
    {"type":"FeatureCollection","features":[
     {"type":"Feature","id":"depot","properties":{"name":"Depot"},
      "geometry":{"type":"Polygon","coordinates":[[[11.0,48.0],[11.1,48.0],[11.1,48.1],[11.0,48.1],[11.0,48.0]]]}}
    ]}
    """

/// Sends `lines` as one datagram and waits (bounded) for a reply.
func exchange(_ client: UDPClient, _ lines: [String], timeout: Int32 = 5000) -> JSONReply? {
    client.send(Array(lines.joined(separator: "\n").utf8))
    return client.receive(timeoutMs: timeout).flatMap(JSONReply.parse)
}

func fixLine(
    _ seq: Int, _ t: Int64, lat: Double, lon: Double, device: String = "truck-1", speed: Double = 40
) -> String {
    #"{"device":"\#(device)","time":\#(t),"lat":\#(lat),"lon":\#(lon),"speed":\#(speed),"course":90,"alt":512,"seq":\#(seq)}"#
}

@Suite(.serialized, .offPool) struct DaemonEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    @Test func storesAcknowledgesAndAlertsThenStopsCleanly() throws {
        // The first fix beyond the margin confirms an exit here (the default waits for three).
        let d = try DaemonProcess(
            fences: depotFences, tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0")
        let client = try UDPClient(host: "127.0.0.1", port: d.port)

        // Outside, inside, outside: one datagram per fix, each acknowledged after commit.
        let lines = [
            fixLine(1, t0, lat: 47.95, lon: 11.05), fixLine(2, t0 + 10_000, lat: 48.05, lon: 11.05),
            fixLine(3, t0 + 20_000, lat: 48.15, lon: 11.05),
        ]
        for (i, line) in lines.enumerated() {
            #expect(exchange(client, [line]) == JSONReply(acked: [Int64(i + 1)]))
        }
        // A resend (lost acknowledgement) is acknowledged again and stored once.
        #expect(exchange(client, [lines[1]]) == JSONReply(acked: [2]))

        let positions = try d.fleetctl("positions", ["--device", "truck-1"])
        #expect(positions.count == 3)
        #expect(
            positions.map { $0["time"] as? String } == [
                "2023-11-14T22:13:20.000Z", "2023-11-14T22:13:30.000Z", "2023-11-14T22:13:40.000Z",
            ])
        #expect(positions[1]["lat"] as? Double == 48.05)
        #expect(positions[1]["lon"] as? Double == 11.05)
        #expect(positions[1]["speed_kmh"] as? Double == 40)
        #expect(positions[1]["course"] as? Double == 90)
        #expect(positions[1]["alt_m"] as? Double == 512)
        #expect(positions[1]["valid"] as? Bool == true)

        let alerts = try d.fleetctl("alerts")
        #expect(alerts.map { $0["type"] as? String } == ["geofence_enter", "geofence_exit"])
        #expect(alerts.map { $0["fence"] as? String } == ["depot", "depot"])
        #expect(alerts.map { $0["device"] as? String } == ["truck-1", "truck-1"])
        // Dated where the way between the fixes crossed the depot's edges
        // (latitude 48.0 and 48.1: halfway between the fixes).
        #expect(
            alerts.map { $0["time"] as? String } == [
                "2023-11-14T22:13:25.000Z", "2023-11-14T22:13:35.000Z",
            ])
        #expect(alerts.map { $0["id"] as? Int } == [1, 2])
        #expect(alerts[0]["lat"] as? Double == 48.05)

        #expect(d.stop() == 0)
        #expect(d.notify.waitFor("STOPPING=1", timeout: 5) != nil)
    }

    /// SIGTERM in the middle of a stream: every fix the daemon stored by the
    /// time it exits was acknowledged (the last batches read are committed
    /// and answered before the sockets close), and it exits 0.
    @Test func everyFixStoredAtSIGTERMIsAcknowledged() throws {
        let d = try DaemonProcess(fences: depotFences)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        nonisolated(unsafe) let unsafeClient = client
        let t0: Int64 = 1_700_000_000_000
        let total = 3000
        let sender = Thread {
            for i in 1...total {
                _ = unsafeClient.send(
                    Array(fixLine(i, t0 + Int64(i) * 1000, lat: 48.05, lon: 11.05).utf8))
                if i % 10 == 0 { usleep(1000) }
            }
        }
        sender.start()
        usleep(100_000)  // about a third of the stream is out
        d.process.terminate()
        var acked: Set<Int64> = []
        while let bytes = client.receive(timeoutMs: 2000) {
            if let reply = JSONReply.parse(bytes) { acked.formUnion(reply.acked) }
        }
        #expect(d.stop() == 0)
        let stored = Set(
            try d.fleetctl("positions", ["--device", "truck-1"]).compactMap {
                $0["time"] as? String
            })
        #expect(stored.count > 0 && stored.count < total)
        #expect(stored.count == acked.count, "stored \(stored.count), acknowledged \(acked.count)")
    }

    @Test func badInputIsRefusedWithReasonsAndGoodDataBesideItKept() throws {
        let d = try DaemonProcess(fences: depotFences)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        // One datagram: a good line, a syntax error, an out-of-range latitude, a future fix, a good line.
        let reply = exchange(
            client,
            [
                fixLine(10, t0, lat: 48.05, lon: 11.05),
                #"{"device":"truck-1","time":1700000001000,"lat":48.05,"seq":11"#,
                fixLine(12, t0 + 2000, lat: 95, lon: 11.05),
                fixLine(
                    13, WallClock.system.nowMs() + 3_600_000, lat: 48.05,
                    lon: 11.05),
                fixLine(14, t0 + 4000, lat: 48.06, lon: 11.05),
            ])
        #expect(reply?.acked == [10, 14])
        // The truncated line's seq was read before the syntax error: the sender learns it too.
        #expect(reply?.rejected.map(\.seq) == [11, 12, 13])
        #expect(reply?.rejected.map(\.reason) == [.jsonSyntax, .latOutOfRange, .futureTime])
        // Garbage gets no reply and does not stop the daemon.
        client.send([0xFF, 0x00, 0x13, 0x37])
        client.send(Array("not json at all".utf8))
        #expect(
            exchange(client, [fixLine(15, t0 + 5000, lat: 48.07, lon: 11.05)])
                == JSONReply(acked: [15]))
        #expect(try d.fleetctl("positions", ["--device", "truck-1"]).count == 3)
        // The refusals are counted in the status line and logged.
        #expect(d.notify.waitFor("rejected", timeout: 5)?.contains("json/json_syntax") == true)
        #expect(d.stop() == 0)
        #expect(d.log.contains("lat_out_of_range"))
    }

    @Test func stateSurvivesARestart() throws {
        let first = try DaemonProcess(fences: depotFences)
        var client = try UDPClient(host: "127.0.0.1", port: first.port)
        #expect(exchange(client, [fixLine(1, t0, lat: 48.05, lon: 11.05)]) == JSONReply(acked: [1]))
        // Out beyond the margin: an exit begins, to be confirmed by two more fixes.
        #expect(
            exchange(client, [fixLine(2, t0 + 1000, lat: 47.0, lon: 11.05)])
                == JSONReply(acked: [2]))
        first.crash()
        // Same database, new process: no second enter, and the exit begun before the crash completes.
        let second = try DaemonProcess(fences: depotFences, dir: first.dir)
        client = try UDPClient(host: "127.0.0.1", port: second.port)
        #expect(
            exchange(client, [fixLine(3, t0 + 2000, lat: 47.0, lon: 11.06)])
                == JSONReply(acked: [3]))
        #expect(
            exchange(client, [fixLine(4, t0 + 3000, lat: 47.0, lon: 11.07)])
                == JSONReply(acked: [4]))
        let alerts = try second.fleetctl("alerts")
        #expect(alerts.map { $0["type"] as? String } == ["geofence_enter", "geofence_exit"])
        // Dated where the way out crossed the edge (5 km of 116 km in 1 s).
        #expect(alerts.last?["time"] as? String == "2023-11-14T22:13:20.048Z")
        #expect(alerts.last?["duration_s"] as? Double == 0.048)
        #expect(second.stop() == 0)
    }

    @Test func fleetsimReplaysABundledRouteIntoTheBundledZones() throws {
        let zones = try String(
            contentsOf: Binaries.packageRoot.appendingPathComponent("config/geofences.geojson"),
            encoding: .utf8)
        let d = try DaemonProcess(fences: zones)
        let route = Binaries.packageRoot.appendingPathComponent(
            "Simulator/routes/t02_visnjan_car.gpx"
        ).path
        let r = try runTool(
            try Binaries.path("fleetsim"),
            ["replay", "--speedup", "0", "--target", "127.0.0.1:\(d.port)", route], timeout: 60)
        #expect(r.status == 0, "fleetsim: \(r.out) \(r.err)")
        #expect(r.out.contains("sent 104 fixes, 104 acknowledged"))
        let alerts = try d.fleetctl("alerts")
        let fences = Set(alerts.compactMap { $0["fence"] as? String })
        #expect(fences == ["visnjan-box", "visnjan-hull"])
        #expect(alerts.first?["type"] as? String == "geofence_enter")
        #expect(try d.fleetctl("positions", ["--device", "t02_visnjan_car"]).count == 104)
        #expect(d.stop() == 0)
    }

    @Test func aLargeDatagramIsReadWholeAndTrackedInArrivalOrder() throws {
        let d = try DaemonProcess(fences: depotFences)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        // About 60 000 bytes (far beyond a 1 KiB or an MTU-sized read), 8 vehicles
        // interleaved: each enters the depot in round 10 and leaves in round 20. One
        // batch big enough to be tracked by every shard in parallel.
        let lines = (0..<560).map { k in
            let round = k / 8
            return fixLine(
                k + 1, t0 + Int64(round) * 1000, lat: (10..<20).contains(round) ? 48.05 : 47.5,
                lon: 11.05, device: "v\(k % 8)")
        }
        #expect(lines.joined(separator: "\n").utf8.count > 55_000)
        let reply = exchange(client, lines)
        #expect(reply?.acked.count == 560)
        #expect(reply?.rejected.isEmpty == true)
        let alerts = try d.fleetctl("alerts")
        let vehicles = (0..<8).map { "v\($0)" }
        #expect(alerts.map { $0["device"] as? String } == vehicles + vehicles)
        #expect(
            alerts.map { $0["type"] as? String }
                == Array(repeating: "geofence_enter", count: 8)
                + Array(repeating: "geofence_exit", count: 8))
        #expect(d.stop() == 0)
    }

    @Test func aSecondFleetdOnTheSameDatabaseNamesTheFirstAndExits() throws {
        let first = try DaemonProcess(fences: depotFences)
        let cfg = first.dir.appendingPathComponent("second.toml").path
        try
            "[storage]\ndatabase = \"\(first.database)\"\n[geofences]\nfile = \"\"\n[listen]\njson = \"127.0.0.1:0\"\nteltonika = \"\"\nnmea = \"\"\nosmand = \"\"\n[http]\nlisten = \"\"\n"
            .write(toFile: cfg, atomically: true, encoding: .utf8)
        let second = try runTool(try Binaries.path("fleetd"), ["--config", cfg], timeout: 30)
        #expect(second.status == 1)
        #expect(
            second.err.contains(
                "database \(first.database) is in use by another fleetd (pid \(first.process.processIdentifier), lock \(first.database).lock)"
            ), "\(second.err)")
        // The first goes on; after a SIGKILL the lock is free again.
        let client = try UDPClient(host: "127.0.0.1", port: first.port)
        #expect(exchange(client, [fixLine(1, t0, lat: 48.05, lon: 11.05)]) == JSONReply(acked: [1]))
        first.crash()
        let again = try DaemonProcess(fences: depotFences, dir: first.dir)
        #expect(again.stop() == 0)
    }

    @Test func startupErrorsNameTheProblem() throws {
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-e2e-bad-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let badConfig = dir.appendingPathComponent("bad.toml").path
        try "[listen]\njsn = \"127.0.0.1:1\"\n".write(
            toFile: badConfig, atomically: true, encoding: .utf8)
        let r1 = try runTool(try Binaries.path("fleetd"), ["--config", badConfig])
        #expect(r1.status == 2)
        #expect(r1.err.contains("bad.toml:2: listen.jsn: unknown key"))

        let fences = dir.appendingPathComponent("f.geojson").path
        try
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]]]}}]}"#
            .write(toFile: fences, atomically: true, encoding: .utf8)
        let cfg = dir.appendingPathComponent("c.toml").path
        try
            "[storage]\ndatabase = \"\(dir.path)/db\"\n[geofences]\nfile = \"\(fences)\"\n[listen]\njson = \"127.0.0.1:0\"\nteltonika = \"\"\nnmea = \"\"\nosmand = \"\"\n[http]\nlisten = \"\"\n"
            .write(toFile: cfg, atomically: true, encoding: .utf8)
        let r2 = try runTool(try Binaries.path("fleetd"), ["--config", cfg])
        #expect(r2.status == 1)
        #expect(
            r2.err.contains(
                "feature 0 (id \"x\"): polygon exterior ring: a ring needs at least 4 positions, found 3"
            ))
        // --check-config checks the fences file as start-up does.
        let check = try runTool(try Binaries.path("fleetd"), ["--config", cfg, "--check-config"])
        #expect(check.status == 2)
        #expect(check.err.contains("a ring needs at least 4 positions, found 3"), "\(check.err)")
        try FileManager.default.removeItem(atPath: fences)
        let missing = try runTool(try Binaries.path("fleetd"), ["--config", cfg, "--check-config"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("\(fences): 1 problem\n  not found"), "\(missing.err)")

        // A database folder that cannot be made: one line naming it, at
        // start-up and from --check-config alike.
        let ro = dir.appendingPathComponent("ro.toml").path
        try
            "[storage]\ndatabase = \"/proc/fleetd-nope/db\"\n[geofences]\nfile = \"\"\n[listen]\njson = \"127.0.0.1:0\"\nteltonika = \"\"\nnmea = \"\"\nosmand = \"\"\n[http]\nlisten = \"\"\n"
            .write(toFile: ro, atomically: true, encoding: .utf8)
        for args in [["--config", ro], ["--config", ro, "--check-config"]] {
            let r = try runTool(try Binaries.path("fleetd"), args)
            #expect(r.status == (args.count == 3 ? 2 : 1))
            #expect(
                r.err.contains(
                    "cannot create the database folder /proc/fleetd-nope: No such file or directory"
                ),
                "\(r.err)")
        }
        // A listen address in use: --check-config names it.
        let d = try DaemonProcess(fences: nil)
        let clash = dir.appendingPathComponent("clash.toml").path
        try
            "[storage]\ndatabase = \"\(dir.path)/clash.db\"\n[geofences]\nfile = \"\"\n[listen]\njson = \"127.0.0.1:\(d.port)\"\nteltonika = \"\"\nnmea = \"\"\nosmand = \"\"\n[http]\nlisten = \"\"\n"
            .write(toFile: clash, atomically: true, encoding: .utf8)
        let c = try runTool(try Binaries.path("fleetd"), ["--config", clash, "--check-config"])
        #expect(c.status == 2)
        #expect(c.err.contains("cannot bind 127.0.0.1:\(d.port)"), "\(c.err)")
        #expect(d.stop() == 0)
    }
}
