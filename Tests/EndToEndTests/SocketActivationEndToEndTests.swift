import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// fleetd started the way systemd starts it from `fleetd.socket`: by
/// systemd's own `systemd-socket-activate`, which holds the sockets, waits
/// for the first datagram and then runs fleetd with them (`LISTEN_FDS`).
@Suite(.serialized, .offPool) struct SocketActivationEndToEndTests {
    static let activate = "/usr/bin/systemd-socket-activate"

    /// A UDP port free now on loopback (the kernel's choice for port 0).
    static func freePort() throws -> Int { try freeUDPPort() }

    /// Starts `argv` with `posix_spawn(3)`, standard error to `log`, and
    /// returns its pid. Not through Foundation's `Process`: that takes the
    /// closing of a descriptor it gives its child for the child's end, and
    /// systemd-socket-activate closes every descriptor but the sockets
    /// before it runs fleetd (Foundation would then block reaping every
    /// other child, `fleetctl` among them, until fleetd exits).
    static func spawn(_ argv: [String], environment: [String: String], log: String) throws -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // An empty signal mask and default handlers, as a service manager gives.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cArgs + cEnv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attr, cArgs, cEnv)
        guard rc == 0 else {
            throw E2EError("posix_spawn \(argv[0]): \(String(cString: strerror(rc)))")
        }
        runningDaemons.withLock { _ = $0.insert(pid) }
        return pid
    }

    /// Waits (bounded) for `pid` to exit; its exit status, or nil.
    static func reap(_ pid: pid_t, timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                runningDaemons.withLock { _ = $0.remove(pid) }
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    @Test func fixesAreAcknowledgedThroughPassedSockets() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.activate) else {
            Issue.record("\(Self.activate) is missing (Debian's systemd package)")
            return
        }
        let json = try Self.freePort(), teltonika = try Self.freePort(), nmea = try Self.freePort()
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-sa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let database = dir.appendingPathComponent("fleetd.db").path
        let fences = dir.appendingPathComponent("fences.geojson").path
        try depotFences.write(toFile: fences, atomically: true, encoding: .utf8)
        // JSON and Teltonika are named after their protocol (the config's
        // ports for them are others, and unused); the NMEA socket carries
        // the name systemd gives a unit's sockets by default and is matched
        // by the config's [listen] nmea port.
        let config = dir.appendingPathComponent("fleetd.toml").path
        try """
        [storage]
        database = "\(database)"
        retain_days = 0
        [geofences]
        file = "\(fences)"
        [listen]
        json = "127.0.0.1:0"
        teltonika = "127.0.0.1:0"
        nmea = "127.0.0.1:\(nmea)"
        [tracking]
        jump_speed_kmh = 0
        exit_confirm_fixes = 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let notify = try NotifySocket(path: dir.appendingPathComponent("notify.sock").path)
        defer { notify.close() }
        let log = dir.appendingPathComponent("fleetd.log").path
        let pid = try Self.spawn(
            [
                Self.activate, "--datagram", "--listen=127.0.0.1:\(json)",
                "--listen=127.0.0.1:\(teltonika)", "--listen=127.0.0.1:\(nmea)",
                "--fdname=json:teltonika:fleetd.socket", "-E", "NOTIFY_SOCKET",
                try Binaries.path("fleetd"), "--config", config,
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "PATH": "/usr/bin:/bin"], log: log)
        defer {
            if Self.reap(pid, timeout: 0) == nil {
                kill(pid, SIGKILL); _ = Self.reap(pid, timeout: 5)
            }
        }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        // Nothing runs fleetd until a datagram arrives.
        let deadline = Date().addingTimeInterval(10)
        while !logText().contains("Listening on 127.0.0.1:\(nmea)"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(notify.waitFor("READY=1", timeout: 0.3) == nil)
        let now = WallClock.system.nowMs() - 60_000
        let jsonClient = try UDPClient(host: "127.0.0.1", port: json)
        jsonClient.send(Array(fixLine(1, now, lat: 47.95, lon: 11.05, device: "sa-1").utf8))
        let ready = try #require(notify.waitFor("READY=1", timeout: 20), "\(logText())")
        #expect(
            ready.contains("json 127.0.0.1:\(json)")
                && ready.contains("teltonika 127.0.0.1:\(teltonika)"))
        #expect(ready.contains("nmea 127.0.0.1:\(nmea)"), "\(ready)")
        #expect(logText().contains("json: using the socket systemd passed (127.0.0.1:\(json))"))
        // The datagram that started it waited in the kernel and is acknowledged.
        let reply = jsonClient.receive(timeoutMs: 5000).flatMap(JSONReply.parse)
        #expect(reply?.acked == [1], "\(String(describing: reply))")
        #expect(
            exchange(
                jsonClient, [fixLine(2, now + 10_000, lat: 48.05, lon: 11.05, device: "sa-1")])?
                .acked == [2])

        let tc = try UDPClient(host: "127.0.0.1", port: teltonika)
        let packet = TeltonikaEncoder.udp(
            packetId: 0x0101, avlPacketId: 7, imei: "352093081452252", codec: 0x08,
            records: [TeltonikaEncoder.Record(time: now, lat: 48.05, lon: 11.05)])
        tc.send(packet)
        #expect(tc.receive(timeoutMs: 5000) == [0x00, 0x05, 0x01, 0x01, 0x01, 0x07, 0x01])

        let nc = try UDPClient(host: "127.0.0.1", port: nmea)
        nc.send(
            Array(
                [
                    NMEAEncoder.checksummed("$PFLID,sa-boat"),
                    NMEAEncoder.checksummed(
                        "$GPRMC,101500.00,A,4803.000,N,01103.000,E,010.0,045.0,211126,,,A"),
                    NMEAEncoder.checksummed(
                        "$GPGGA,101500.00,4803.000,N,01103.000,E,1,09,0.8,512.3,M,47.0,M,,"),
                ].joined(separator: "\r\n").utf8))
        let ctl = try Binaries.path("fleetctl")
        func rows(_ device: String) throws -> Int {
            let r = try runTool(ctl, ["positions", "--db", database, "--json", "--device", device])
            return r.out.split(separator: "\n").count
        }
        let until = Date().addingTimeInterval(10)
        while try rows("sa-boat") < 1, Date() < until { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try rows("sa-boat") == 1)
        #expect(try rows("sa-1") == 2)
        #expect(try rows("352093081452252") == 1)
        let alerts = try runTool(ctl, ["alerts", "--db", database, "--json"])
        #expect(alerts.out.contains("geofence_enter"), "\(alerts.out)")
        // fleetd is the wrapper's process (it runs fleetd in its place): SIGTERM stops it cleanly.
        kill(pid, SIGTERM)
        #expect(Self.reap(pid, timeout: 20) == 0, "\(logText())")
        #expect(logText().contains("stopped: 4 fixes stored"), "\(logText())")
        try? FileManager.default.removeItem(at: dir)
    }

    @Test func aSocketFleetdCannotServeIsRefusedByName() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.activate) else {
            Issue.record("\(Self.activate) is missing (Debian's systemd package)")
            return
        }
        let port = try freeTCPPort()
        let fleetd = try Binaries.path("fleetd")
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-sa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("fleetd.toml").path
        try "[storage]\ndatabase = \"\(dir.path)/fleetd.db\"\n[geofences]\nfile = \"\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        // A stream socket named http: fleetd binds its HTTP port itself.
        let log = dir.appendingPathComponent("fleetd.log").path
        let pid = try Self.spawn(
            [
                Self.activate, "--listen=127.0.0.1:\(port)", "--fdname=http", fleetd, "--config",
                config,
            ], environment: ["PATH": "/usr/bin:/bin"], log: log)
        defer {
            if Self.reap(pid, timeout: 0) == nil {
                kill(pid, SIGKILL); _ = Self.reap(pid, timeout: 5)
            }
        }
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let listening = Date().addingTimeInterval(10)
        while !logText().contains("Listening on"), Date() < listening {
            Thread.sleep(forTimeInterval: 0.05)
        }
        // A connection wakes the wrapper (stream sockets wait for one).
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        defer { close(s) }
        let status = Self.reap(pid, timeout: 20)
        let text = logText()
        #expect(status == 1, "\(text)")
        #expect(text.contains("systemd passed a socket named \"http\""), "\(text)")
    }

    /// A stream socket passed under the unit's default name, matched to the
    /// GT06 door by the config's `[listen] gt06` port: a device's login and
    /// location are answered through it.
    @Test func aPassedStreamSocketServesItsTCPDoor() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.activate) else {
            Issue.record("\(Self.activate) is missing (Debian's systemd package)")
            return
        }
        let fleetd = try Binaries.path("fleetd")
        let dir = TestScratch.root.appendingPathComponent(
            "fleetd-sa-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("fleetd.toml").path
        let log = dir.appendingPathComponent("fleetd.log").path
        func logText() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        // A free port can be taken by another process (a client's source
        // port, under a busy suite) before the wrapper binds it: then the
        // wrapper exits, and the test tries another port.
        var started: (pid: pid_t, port: Int)?
        for _ in 0..<5 where started == nil {
            let port = try freeTCPPort()
            try """
            [storage]
            database = "\(dir.path)/fleetd.db"
            [geofences]
            file = ""
            [listen]
            gt06 = "127.0.0.1:\(port)"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let pid = try Self.spawn(
                [
                    Self.activate, "--listen=127.0.0.1:\(port)", "--fdname=fleetd.socket", fleetd,
                    "--config", config,
                ], environment: ["PATH": "/usr/bin:/bin"], log: log)
            let listening = Date().addingTimeInterval(30)
            while !logText().contains("Listening on"), Date() < listening,
                Self.reap(pid, timeout: 0.06) == nil
            {}
            if logText().contains("Listening on") {
                started = (pid, port)
            } else {
                kill(pid, SIGKILL)
                _ = Self.reap(pid, timeout: 5)
            }
        }
        guard let (pid, port) = started else {
            Issue.record("systemd-socket-activate never listened: \(logText())")
            return
        }
        defer {
            if Self.reap(pid, timeout: 0.06) == nil {
                kill(pid, SIGKILL); _ = Self.reap(pid, timeout: 5)
            }
        }
        // The connection wakes the wrapper, which runs fleetd with the socket.
        let c = try TCPTestClient(port: port)
        c.send(GT06Encoder.login(imei: "353419036066061", serial: 1))
        #expect(
            c.receive(10, timeoutMs: 20_000).bytes == GT06Session.reply(proto: 0x01, serial: 1),
            "\(logText())")
        let now = (WallClock.system.nowMs() - 60_000) / 1000 * 1000
        c.send(
            GT06Encoder.location(
                timeMs: now, lat: 48.1, lon: 11.5, speedKmh: 30, course: 90, acc: true, serial: 2))
        #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x22, serial: 2))
        #expect(logText().contains("gt06: listening on 127.0.0.1:\(port) (TCP)"), "\(logText())")
        kill(pid, SIGTERM)
        #expect(Self.reap(pid, timeout: 20) == 0, "\(logText())")
    }
}
