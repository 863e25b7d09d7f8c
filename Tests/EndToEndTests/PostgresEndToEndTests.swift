import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Synchronization
import Testing

/// fleetd on a real PostgreSQL 15 (a server of the test's own): the same
/// alerts, trips and positions as on SQLite for the same input, nothing
/// acknowledged before it is committed while the server is down, and
/// `fleetctl` reading and changing it through the config.
@Suite(.serialized, .offPool) struct PostgresEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    /// The bundled routes replayed by `fleetsim` (as fast as acknowledged)
    /// into `d`; every fix must be acknowledged.
    func replayRoutes(_ d: DaemonProcess) async throws {
        let routes = ["t01_munich_car_1hz.csv", "t02_visnjan_car.csv", "t03_limerick_bus304.csv"]
            .map { Binaries.packageRoot.appendingPathComponent("Simulator/routes/\($0)").path }
        let out = d.dir.appendingPathComponent("replay.out")
        let sim = try ClusterEndToEndTests.fleetsim(
            ["replay"] + routes + ["--target", "127.0.0.1:\(d.port)", "--speedup", "0"], out: out)
        #expect(await ClusterEndToEndTests.ended(sim, timeout: 120))
        let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        #expect(sim.terminationStatus == 0, "\(text)")
        #expect(text.contains("sent 3442 fixes, 3442 acknowledged"), "\(text)")
    }

    /// Alerts as comparable lines (ids left out: commit order may differ).
    func alertLines(_ d: DaemonProcess) throws -> [String] {
        try d.fleetctl("alerts").map {
            "\($0["time"] ?? "") \($0["device"] ?? "") \($0["type"] ?? "") \($0["fence"] ?? "-")"
        }.sorted()
    }

    func tripLines(_ d: DaemonProcess) throws -> [String] {
        try d.fleetctl("trips").map {
            let km = String(format: "%.3f", ($0["distance_m"] as? Double ?? -1) / 1000)
            return "\($0["device"] ?? "") \($0["start_time"] ?? "") \($0["end_time"] ?? "") \(km)"
        }.sorted()
    }

    /// Device `van-9` drives 2 km east, 2 km north and 2 km east, a fix
    /// every 20 s, parked before and after; the fixes at its two corners
    /// come late (60 s and 5 min after their time), the second one twice.
    func sendCornerDrive(_ d: DaemonProcess) throws {
        let mLat = 1 / 111_195.08
        let mLon = 1 / (111_195.08 * cos(48 * Double.pi / 180))
        let base = t0 + 50_000_000
        var seq = 0
        func send(_ t: Int64, _ north: Double, _ east: Double) throws {
            seq += 1
            let line = fixLine(
                seq, base + t * 1000, lat: 48 + north * mLat, lon: 11 + east * mLon,
                device: "van-9")
            let client = try UDPClient(host: "127.0.0.1", port: d.port)
            var reply: JSONReply?
            for _ in 0..<5 where reply == nil { reply = exchange(client, [line]) }
            #expect(reply?.acked == [Int64(seq)], "fix at \(t) s not acknowledged")
        }
        func at(_ t: Int64) -> (Double, Double) {
            t <= 400
                ? (0, Double(t - 200) * 10)
                : t <= 600 ? (Double(t - 400) * 10, 2000) : (2000, 2000 + Double(t - 600) * 10)
        }
        for k in 0..<20 { try send(Int64(k) * 10, 0, 0) }
        for k in 1...30 {
            let t = 200 + Int64(k) * 20
            if t == 400 || t == 600 { continue }
            try send(t, at(t).0, at(t).1)
            if t == 460 { try send(400, at(400).0, at(400).1) }
        }
        for k in 1...30 { try send(800 + Int64(k) * 10, 2000, 4000) }
        try send(600, at(600).0, at(600).1)
        try send(600, at(600).0, at(600).1)
    }

    @Test func theSameAnswersAsSQLiteAndNothingAcknowledgedWhileTheServerIsDown() async throws {
        let pg = try PostgresServer()
        defer { pg.remove() }
        let fences = try String(
            contentsOf: Binaries.packageRoot.appendingPathComponent("config/geofences.geojson"),
            encoding: .utf8)
        // fleetd's own tracking defaults on both; positions of any age kept.
        let lite = try DaemonProcess(fences: fences, tracking: "", trip: "")
        defer { _ = lite.stop() }
        let onPG = try DaemonProcess(
            fences: fences, extraConfig: pg.sectionConfig,
            storageExtra: "retain_days = 0\n" + pg.storageConfig, tracking: "", trip: "",
            environment: ["WATCHDOG_USEC": "4000000"])
        onPG.databaseArgs = ["--config", onPG.configPath]
        try await replayRoutes(lite)
        try await replayRoutes(onPG)

        let alerts = try alertLines(onPG)
        #expect(alerts.count > 20)
        #expect(alerts == (try alertLines(lite)))
        let trips = try tripLines(onPG)
        #expect(trips.count >= 4)
        #expect(trips == (try tripLines(lite)))
        let summary = try runTool(
            try Binaries.path("fleetctl"), ["summary", "--config", onPG.configPath])
        #expect(summary.out.contains("positions stored 3442"), "\(summary.out)\(summary.err)")

        // Late fixes (older than the reorder window) count in the distance
        // of the trip they fall in, the same on both: one sent while the
        // trip was under way, one after it was stored, that one twice.
        try sendCornerDrive(lite)
        try sendCornerDrive(onPG)
        let corner = 400 - 200 * 2.0.squareRoot()  // the way through a corner less its diagonal
        for d in [lite, onPG] {
            let vans = try d.fleetctl("trips", ["--device", "van-9"])
            #expect(vans.count == 1)
            let detour = vans.first?["late_detour_m"] as? Double ?? -1
            #expect(abs(detour - 2 * corner) < 1, "late_detour_m \(detour)")
            let distance = vans.first?["distance_m"] as? Double ?? -1
            #expect(abs(distance - 6000) < 30, "distance_m \(distance)")
        }
        #expect(try tripLines(onPG) == (try tripLines(lite)))

        // The server goes away: nothing is acknowledged, fleetd stays up and says so.
        let client = try UDPClient(host: "127.0.0.1", port: onPG.port)
        let before = (1...3).map { fixLine($0, t0 + Int64($0) * 1000, lat: 48.1, lon: 11.5) }
        #expect(exchange(client, before)?.acked == [1, 2, 3])
        try pg.stop()
        let during = (4...8).map { fixLine($0, t0 + Int64($0) * 1000, lat: 48.1, lon: 11.5) }
        for _ in 0..<3 { #expect(exchange(client, during, timeout: 700) == nil) }
        #expect(onPG.process.isRunning)
        #expect(
            onPG.notify.waitFor("STORAGE FAILING", timeout: 5) != nil,
            "no STATUS= about failing storage; log:\n\(onPG.log)")
        // Still alive under the watchdog: the writer retries, it is not stuck.
        #expect(onPG.notify.waitFor("WATCHDOG=1", timeout: 5) != nil)

        // It comes back: the held batch commits, the resends are acknowledged.
        try pg.start()
        var reply: JSONReply?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, reply?.acked.count != 5 {
            reply = exchange(client, during, timeout: 700)
        }
        #expect(reply?.acked == [4, 5, 6, 7, 8], "log:\n\(onPG.log)")
        while client.receive(timeoutMs: 300) != nil {}
        // A late answer to an earlier resend may still come first (a loaded
        // machine): the answer that names 9 is the one looked for.
        var nine: JSONReply?
        let until = Date().addingTimeInterval(10)
        while Date() < until, nine == nil {
            nine = exchange(client, [fixLine(9, t0 + 9000, lat: 48.1, lon: 11.5)]).flatMap {
                $0.acked.contains(9) ? $0 : nil
            }
        }
        #expect(nine?.acked == [9])
        let times = try onPG.fleetctl("positions", ["--device", "truck-1"]).compactMap {
            $0["time"] as? String
        }
        #expect(times.count == 9)
        #expect(Set(times).count == 9)
        #expect(onPG.log.contains("storage recovered"), "\(onPG.log)")
        // The password never reaches the log.
        #expect(!onPG.log.contains(pg.password))

        // fleetctl changes it beside the running daemon, with the audit trail.
        let add = try runTool(
            try Binaries.path("fleetctl"),
            [
                "users", "add", "ops", "--role", "viewer", "--password-stdin", "--config",
                onPG.configPath,
            ], stdin: "correct horse battery\n")
        #expect(add.status == 0, "\(add.err)")
        let users = try onPG.fleetctl("users")
        #expect(users.compactMap { $0["name"] as? String } == ["ops"])
        let audit = try onPG.fleetctl("audit")
        #expect(audit.compactMap { $0["action"] as? String } == ["user.add"])
        #expect(onPG.stop() == 0, "log:\n\(onPG.log)")
    }

    /// Commands on PostgreSQL: queued by `fleetctl` through the config,
    /// sent to a device on the TCP door, its answer stored, listed.
    @Test func aCommandGoesToTheDeviceAndItsAnswerIsStored() throws {
        let pg = try PostgresServer()
        defer { pg.remove() }
        let d = try DaemonProcess(
            fences: nil, extraConfig: pg.sectionConfig,
            storageExtra: "retain_days = 0\n" + pg.storageConfig,
            listenExtra: "teltonika_tcp = \"127.0.0.1:0\"")
        d.databaseArgs = ["--config", d.configPath]
        let imei = "352093081452251"
        let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        c.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(c.receive(1).bytes == [1])
        c.send(TeltonikaEncoder.tcp(records: [.init(time: t0, lat: 48.1, lon: 11.5)]))
        #expect(c.receive(4).bytes == [0, 0, 0, 1])
        let ctl = try Binaries.path("fleetctl")
        let q = try runTool(ctl, ["commands", "send", imei, "getver"] + d.databaseArgs)
        #expect(q.status == 0, "\(q.err)")
        #expect(
            try runTool(ctl, ["commands", "send", "nobody", "getver"] + d.databaseArgs).status != 0)
        let frame = TeltonikaTCPSession.commandFrame("getver")
        #expect(c.receive(frame.count, timeoutMs: 8000).bytes == frame)
        let text = Array("Ver:03.27.07 GPS:AXN_5.1.1 Hw:FMB920".utf8)
        let data: [UInt8] = [0x0C, 0x01, 0x06] + be32(UInt32(text.count)) + text + [0x01]
        c.send([0, 0, 0, 0] + be32(UInt32(data.count)) + data + be32(UInt32(CRC16.ibm(data))))
        var listed: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(10)
        while listed.first?["status"] as? String != "answered", Date() < deadline {
            listed = try TCPDoorEndToEndTests.commands(d, imei)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(listed.count == 1)
        #expect(listed.first?["status"] as? String == "answered", "\(listed)")
        #expect(listed.first?["response"] as? String == String(decoding: text, as: UTF8.self))
        #expect(d.stop() == 0)
    }

    /// Every door on an ephemeral port: `--check-config` binds what the
    /// file names, and the defaults' fixed ports may be held by another test.
    static let noFixedPorts = """
        [listen]
        json = "127.0.0.1:0"
        teltonika = "127.0.0.1:0"
        nmea = "127.0.0.1:0"
        osmand = "127.0.0.1:0"
        [http]
        listen = "127.0.0.1:0"
        """

    @Test func aBadURLOrPasswordIsAClearErrorAtStart() throws {
        let pg = try PostgresServer()
        defer { pg.remove() }
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-pgbad-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wrong = dir.appendingPathComponent("wrong").path
        try "not-the-password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("fleetd.toml").path
        try """
        [storage]
        backend = "postgresql"
        database = "\(dir.path)/fleetd.db"
        [postgresql]
        url = "\(pg.url)"
        password_file = "\(wrong)"
        \(Self.noFixedPorts)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try runTool(try Binaries.path("fleetd"), ["--check-config", config])
        #expect(r.status == 2)
        #expect(r.err.contains("password authentication failed"), "\(r.err)")
        #expect(!r.err.contains("not-the-password"))

        try """
        [storage]
        backend = "postgres"
        \(Self.noFixedPorts)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let b = try runTool(try Binaries.path("fleetd"), ["--check-config", config])
        #expect(b.status == 2)
        #expect(b.err.contains("storage.backend"), "\(b.err)")
        #expect(b.err.contains(#"must be "sqlite" or "postgresql""#), "\(b.err)")
    }
}

/// Two nodes of a cluster on a real PostgreSQL: an event stream opened on
/// one carries the alerts the other raises (read by id from the shared
/// database), and a device the other holds is refused here without an
/// acknowledgement (`owned_elsewhere`) until that node lets it go.
@Suite(.serialized, .offPool) struct ClusterStreamEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    @Test func aStreamOnOneNodeCarriesTheOthersAlerts() async throws {
        let pg = try PostgresServer()
        defer { pg.remove() }
        func node(_ name: String) throws -> DaemonProcess {
            let d = try DaemonProcess(
                fences: depotFences,
                extraConfig: pg.sectionConfig + "\n[cluster]\nnode = \"\(name)\"",
                storageExtra: "retain_days = 0\n" + pg.storageConfig,
                tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0", http: "127.0.0.1:0",
                osmand: "")
            d.databaseArgs = ["--config", d.configPath]
            return d
        }
        let a = try node("a")
        defer { _ = a.stop() }
        let b = try node("b")
        defer { _ = b.stop() }
        let token = try runTool(
            try Binaries.path("fleetctl"),
            ["tokens", "add", "watcher", "--role", "viewer", "--config", a.configPath])
        #expect(token.status == 0, "\(token.err)")
        let auth = HTTPTestClient.bearer(token.out.trimmingCharacters(in: .whitespacesAndNewlines))
        let http = HTTPTestClient(port: a.ports["http"] ?? 0)
        let open = Mutex(false)
        async let stream = http.events(
            "/api/v1/events?positions=off", headers: auth, timeout: 120, retries: 20,
            opened: { open.withLock { $0 = true } }
        ) { seen in seen.filter { $0.event == "alert" }.count < 2 }
        let deadline = Date().addingTimeInterval(60)
        while !open.withLock({ $0 }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // truck-1 crosses the depot through node b only.
        let toB = try UDPClient(host: "127.0.0.1", port: b.port)
        for (k, lat) in [47.95, 48.05, 48.15].enumerated() {
            #expect(
                exchange(toB, [fixLine(k + 1, t0 + Int64(k) * 10_000, lat: lat, lon: 11.05)])?
                    .acked == [Int64(k + 1)])
        }
        let (status, events) = try await stream
        #expect(status == 200)
        let alerts = events.filter { $0.event == "alert" }
        #expect(alerts.map { $0.json["type"] as? String } == ["geofence_enter", "geofence_exit"])
        #expect(alerts.allSatisfy { $0.json["device"] as? String == "truck-1" })

        // Node b holds truck-1 (it has just sent there): node a refuses its
        // fix unacknowledged, then takes it once b has let it go (b hands it
        // over a second after its last fix there, at its next renewal).
        let toA = try UDPClient(host: "127.0.0.1", port: a.port)
        let next = fixLine(4, t0 + 30_000, lat: 48.15, lon: 11.06)
        #expect(exchange(toA, [next], timeout: 500) == nil)
        var reply: JSONReply?
        let handover = Date().addingTimeInterval(15)
        while Date() < handover, reply?.acked != [4] {
            reply = exchange(toA, [next], timeout: 500)
        }
        #expect(reply?.acked == [4], "log a:\n\(a.log)\nlog b:\n\(b.log)")
        let cluster = try a.fleetctl("cluster")
        #expect(
            cluster.first { $0["node"] as? String == "a" }?["devices"] as? Int == 1,
            "\(cluster)")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }

    /// An open registry on a cluster: each node keeps its own budget of new
    /// ids, and an id another node took (read from the shared store) is not
    /// counted again when its device moves to this node.
    @Test func clusterNodesLimitNewIdsAndKnowTheOthers() throws {
        let pg = try PostgresServer()
        defer { pg.remove() }
        func node(_ name: String) throws -> DaemonProcess {
            try ClusterEndToEndTests.node(
                name, pg: pg, fences: nil,
                extra:
                    "[devices]\nnew_per_source = 20\nnew_total = 1000\nnew_exempt_loopback = false")
        }
        let a = try node("a")
        defer { _ = a.stop() }
        let b = try node("b")
        defer { _ = b.stop() }
        /// For each of `ids` (a fix each at `t`): acknowledged by `d` (true),
        /// refused as a new id over the budget (false), or neither (nil).
        func send(_ d: DaemonProcess, _ ids: [String], at t: Int64) throws -> [Bool?] {
            try ids.enumerated().map { k, id in
                // A client (a port) of its own: a late answer to one id is
                // never read as the next one's.
                let client = try UDPClient(host: "127.0.0.1", port: d.port)
                let line = fixLine(k + 1, t, lat: 48.1, lon: 11.5, device: id)
                var reply: JSONReply?
                for _ in 0..<3 where reply == nil {
                    reply = exchange(client, [line], timeout: 1500)
                }
                if reply?.acked == [Int64(k + 1)] { return true }
                return reply?.rejected.first?.reason == .newDeviceLimit ? false : nil
            }
        }
        let first = (0..<30).map { "new-a-\($0)" }
        let takenByA = try send(a, first, at: t0)
        #expect(
            takenByA.prefix(20).allSatisfy { $0 == true }
                && takenByA.suffix(10).allSatisfy { $0 == false }, "\(takenByA)")
        // Node b learns a's ids from the store (every 10 s), and a lets go
        // of its devices a second after their last fix.
        Thread.sleep(forTimeInterval: 12)
        let moved = try send(b, Array(first.prefix(20)), at: t0 + 60_000)
        #expect(moved.allSatisfy { $0 == true }, "\(moved)\nlog b:\n\(b.log)")
        // b's own budget is whole: 20 new ids taken, the 21st refused.
        let second = try send(b, (0..<21).map { "new-b-\($0)" }, at: t0 + 60_000)
        #expect(
            second.prefix(20).allSatisfy { $0 == true } && second.last == .some(false),
            "\(second)")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }
}
