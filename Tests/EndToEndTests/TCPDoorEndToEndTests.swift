import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// A blocking TCP client with a receive timeout: a tracker on a TCP connection.
final class TCPTestClient {
    let fd: Int32

    init(port: Int, host: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr(host)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard r == 0 else {
            close(fd)
            throw E2EError("connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until `count` bytes arrived or `timeoutMs` passed; what arrived
    /// (fewer bytes at a timeout; `closed` when the server closed).
    func receive(_ count: Int, timeoutMs: Int = 5000) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while out.count < count {
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard deadline.timeIntervalSinceNow > 0 else { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, left) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: count - out.count)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return (out, true) }
            out += buffer.prefix(n)
        }
        return (out, false)
    }

    /// True when the server closes the connection within `timeoutMs`.
    func closedByServer(timeoutMs: Int = 5000) -> Bool {
        receive(1 << 16, timeoutMs: timeoutMs).closed
    }
}

/// fleetd's TCP door as devices and strangers use it: a real fleetd, real
/// TCP connections on loopback, the protocols' own frames.
@Suite(.serialized, .offPool) struct TCPDoorEndToEndTests {
    static let doors = """
        teltonika_tcp = "127.0.0.1:0"
        gt06 = "127.0.0.1:0"
        h02 = "127.0.0.1:0"
        """

    static func record(_ time: Int64, lat: Double = 48.05, lon: Double = 11.05)
        -> TeltonikaEncoder.Record
    {
        var r = TeltonikaEncoder.Record(time: time, lat: lat, lon: lon)
        r.speedKmh = 40
        r.io = [(239, 1, 1)]
        return r
    }

    @Test func teltonikaOverTCPIsAnsweredWithItsCountAfterTheCommit() throws {
        let d = try DaemonProcess(fences: depotFences, listenExtra: Self.doors)
        let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        let imei = "352093081452251"
        c.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(c.receive(1).bytes == [1])
        let now = WallClock.system.nowMs() - 60_000
        let frame = TeltonikaEncoder.tcp(
            codec: 0x8E, records: [Self.record(now), Self.record(now + 1000, lat: 48.06)])
        c.send([0xFF] + frame)  // a keep-alive byte first
        #expect(c.receive(4).bytes == [0, 0, 0, 2])
        // Answered after the commit: the rows are there.
        let rows = try d.fleetctl("positions", ["--device", imei])
        #expect(rows.count == 2)
        #expect(rows.first?["ignition"] as? Bool == true)
        #expect(rows.first?["speed_kmh"] as? Double == 40)
        #expect(try d.fleetctl("alerts").map { $0["type"] as? String } == ["geofence_enter"])
        // A resend (the answer lost): answered again, stored once.
        c.send(frame)
        #expect(c.receive(4).bytes == [0, 0, 0, 2])
        #expect(try d.fleetctl("positions", ["--device", imei]).count == 2)
        // A bad CRC: unanswered, counted; the connection goes on.
        var broken = TeltonikaEncoder.tcp(records: [Self.record(now + 2000)])
        broken[broken.count - 1] ^= 0x55
        c.send(broken)
        #expect(c.receive(4, timeoutMs: 700).bytes.isEmpty)
        #expect(d.notify.waitFor("teltonika_tcp/bad_crc", timeout: 5) != nil)
        c.send(TeltonikaEncoder.tcp(records: [Self.record(now + 3000)]))
        #expect(c.receive(4).bytes == [0, 0, 0, 1])
        #expect(d.stop() == 0)
    }

    @Test func gt06LoginHeartbeatAndLocationsAreAnswered() throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let c = try TCPTestClient(port: try #require(d.ports["gt06"]))
        let imei = "353419036066061"
        c.send(GT06Encoder.login(imei: imei, serial: 1))
        #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x01, serial: 1))
        c.send(GT06Encoder.heartbeat(info: 0x06, serial: 2))
        #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x13, serial: 2))
        let now = (WallClock.system.nowMs() - 60_000) / 1000 * 1000
        c.send(
            GT06Encoder.location(
                timeMs: now, lat: -33.9, lon: 18.4, speedKmh: 55, course: 143, acc: true, serial: 3)
                + GT06Encoder.location(
                    timeMs: now + 10_000, lat: -33.91, lon: 18.41, speedKmh: 20, course: 144,
                    serial: 4))
        #expect(
            c.receive(20).bytes
                == GT06Session.reply(proto: 0x22, serial: 3)
                + GT06Session.reply(proto: 0x12, serial: 4))
        let rows = try d.fleetctl("positions", ["--device", imei])
        #expect(rows.count == 2)
        let p = try #require(rows.first)
        #expect(abs((p["lat"] as? Double ?? 0) + 33.9) < 1e-5)
        #expect(p["speed_kmh"] as? Double == 55 && p["course"] as? Double == 143)
        #expect(p["ignition"] as? Bool == true && p["charging"] as? Bool == true)
        #expect(d.stop() == 0)
    }

    /// A GT06 unit parked with its engine off, started and left running,
    /// its SOS pressed, then switched off: the ignition, idling and alarm
    /// alerts, and the idling in the usage report.
    @Test func gt06IgnitionIdlingAndAlarmsBecomeAlerts() throws {
        let d = try DaemonProcess(
            fences: nil, tracking: "jump_speed_kmh = 0\nidle_after_s = 120", listenExtra: Self.doors
        )
        let c = try TCPTestClient(port: try #require(d.ports["gt06"]))
        let imei = "353419036066062"
        c.send(GT06Encoder.login(imei: imei, serial: 1))
        #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x01, serial: 1))
        let t0 = (WallClock.system.nowMs() - 3_600_000) / 60_000 * 60_000
        var serial: UInt16 = 2
        func at(_ s: Int64, acc: Bool) {
            c.send(
                GT06Encoder.location(
                    timeMs: t0 + s * 1000, lat: 48.1, lon: 11.5, speedKmh: 0, course: 0, acc: acc,
                    serial: serial))
            #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x22, serial: serial))
            serial += 1
        }
        for s in stride(from: 0, through: 120, by: 30) { at(Int64(s), acc: false) }
        for s in stride(from: 150, through: 330, by: 30) { at(Int64(s), acc: true) }
        c.send(
            GT06Encoder.alarm(
                timeMs: t0 + 340_000, lat: 48.1, lon: 11.5, speedKmh: 0, course: 0, info: 0x02,
                alarm: 0x01, serial: serial))
        #expect(c.receive(10).bytes == GT06Session.reply(proto: 0x16, serial: serial))
        serial += 1
        at(360, acc: false)
        let alerts = try d.fleetctl("alerts", ["--device", imei])
        let seen = alerts.map { "\($0["type"] as? String ?? "?") \($0["time"] as? String ?? "?")" }
        func time(_ s: Int64) -> String { RFC3339.format(millis: t0 + s * 1000) }
        #expect(
            Set(seen) == [
                "ignition_on \(time(150))", "idle_start \(time(150))", "device_alarm \(time(340))",
                "ignition_off \(time(360))", "idle_end \(time(360))",
            ], "\(alerts)")
        #expect(
            alerts.first { $0["type"] as? String == "device_alarm" }?["alarm"] as? String == "sos")
        #expect(
            alerts.first { $0["type"] as? String == "idle_end" }?["duration_s"] as? Double == 210)
        let report = try runTool(
            try Binaries.path("fleetctl"),
            ["report", "usage"] + d.databaseArgs + [
                "--json", "--from", time(-60), "--to", time(3600),
            ])
        let doc = try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any]
        let row = (doc?["vehicles"] as? [[String: Any]])?.first { $0["device"] as? String == imei }
        #expect(
            row?["idle_episodes"] as? Int == 1 && row?["idle_s"] as? Double == 210, "\(report.out)")
        #expect(d.stop() == 0)
    }

    /// A Teltonika unit with an iButton reader: the driver's key on the
    /// trip, in the trip's alert and in the usage report's drivers.
    @Test func aTeltonikaDriverKeyNamesTheTripAndTheReport() throws {
        let d = try DaemonProcess(
            fences: nil, trip: "start_distance_m = 200", listenExtra: Self.doors)
        let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        let imei = "352093081452252"
        c.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(c.receive(1).bytes == [1])
        let t0 = (WallClock.system.nowMs() - 3_600_000) / 60_000 * 60_000
        let key: UInt64 = 0x0000_0001_2345_6789
        var records: [TeltonikaEncoder.Record] = []
        func add(_ s: Int64, km: Double, key k: UInt64?) {
            var r = TeltonikaEncoder.Record(
                time: t0 + s * 1000, lat: 48.05 + km / 111.2, lon: 11.05)
            r.sats = 9
            r.io = [(239, 1, k == 0 ? 0 : 1)]
            if let k { r.io.append((78, 8, k)) }
            records.append(r)
        }
        for s in stride(from: 0, through: 120, by: 30) { add(Int64(s), km: 0, key: key) }
        for k in 1...30 { add(120 + Int64(k) * 10, km: Double(k) * 0.1, key: nil) }
        for s in stride(from: 450, through: 720, by: 30) { add(Int64(s), km: 3, key: nil) }
        add(750, km: 3, key: 0)
        c.send(TeltonikaEncoder.tcp(codec: 0x8E, records: records))
        #expect(c.receive(4).bytes == [0, 0, 0, UInt8(records.count)])
        let trips = try d.fleetctl("trips", ["--device", imei])
        #expect(
            trips.count == 1 && trips.first?["driver"] as? String == "0000000123456789", "\(trips)")
        let end = try d.fleetctl("alerts", ["--device", imei]).first {
            $0["type"] as? String == "trip_end"
        }
        #expect(end?["driver"] as? String == "0000000123456789")
        let report = try runTool(
            try Binaries.path("fleetctl"),
            ["report", "usage"] + d.databaseArgs + [
                "--json", "--from", RFC3339.format(millis: t0 - 60_000),
                "--to", RFC3339.format(millis: t0 + 3_600_000),
            ])
        let doc = try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any]
        let drivers = doc?["drivers"] as? [[String: Any]]
        #expect(drivers?.count == 1 && drivers?.first?["driver"] as? String == "0000000123456789")
        #expect(drivers?.first?["devices"] as? [String] == [imei], "\(report.out)")
        #expect(d.stop() == 0)
    }

    @Test func h02PositionsAreConfirmedAndHeartbeatsEchoed() throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let c = try TCPTestClient(port: try #require(d.ports["h02"]))
        let id = "4210051415"
        c.send(H02Encoder.heartbeat(id: id))
        #expect(c.receive(100, timeoutMs: 1000).bytes == Array("*HQ,\(id),HTBT#".utf8))
        let now = (WallClock.system.nowMs() - 60_000) / 1000 * 1000
        c.send(
            H02Encoder.v1(
                id: id, timeMs: now, lat: 9.939782, lon: -84.11178, speedKmh: 37.04, course: 90,
                ignition: true))
        // `*HQ,<id>,V4,V1,yyyyMMddHHmmss#`
        let answer = String(decoding: c.receive(12 + id.count + 14).bytes, as: UTF8.self)
        #expect(answer.hasPrefix("*HQ,\(id),V4,V1,20") && answer.hasSuffix("#"), "\(answer)")
        let rows = try d.fleetctl("positions", ["--device", id])
        #expect(rows.count == 1)
        #expect(abs((rows.first?["lon"] as? Double ?? 0) + 84.11178) < 1e-5)
        #expect(abs((rows.first?["speed_kmh"] as? Double ?? 0) - 37.04) < 0.01)
        #expect(rows.first?["ignition"] as? Bool == true)
        #expect(d.stop() == 0)
    }

    @Test func aClosedRegistryRefusesUnknownDevicesAtTheirHandshake() throws {
        let d = try DaemonProcess(
            fences: nil, extraConfig: "[devices]\naccept_unknown = false\n", listenExtra: Self.doors
        )
        _ = try runTool(
            try Binaries.path("fleetctl"), ["devices", "add", "352000000000001"] + d.databaseArgs)
        // Unknown: Teltonika answers 00 and closes; GT06 closes unanswered.
        let t = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        t.send(TeltonikaEncoder.handshake(imei: "352000000000999"))
        let answer = t.receive(2)
        #expect(answer.bytes == [0] && answer.closed)
        let g = try TCPTestClient(port: try #require(d.ports["gt06"]))
        g.send(GT06Encoder.login(imei: "352000000000999", serial: 1))
        #expect(g.closedByServer())
        // Registered (the registry is re-read every 2 s): accepted.
        var accepted: [UInt8] = []
        let deadline = Date().addingTimeInterval(10)
        while accepted != [1], Date() < deadline {
            let k = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
            k.send(TeltonikaEncoder.handshake(imei: "352000000000001"))
            accepted = k.receive(1).bytes
            if accepted != [1] { Thread.sleep(forTimeInterval: 0.3) }
        }
        #expect(accepted == [1])
        #expect(d.notify.waitFor("gt06/unknown_device", timeout: 5) != nil)
        #expect(d.stop() == 0)
    }

    @Test func floodsTricklersAndOversizedFramesDoNotStopTheDoor() throws {
        let d = try DaemonProcess(
            fences: nil,
            extraConfig: """
                [tcp]
                max_connections_per_address = 4
                handshake_timeout_s = 2
                max_frame_bytes = 1280
                """, listenExtra: Self.doors)
        let port = try #require(d.ports["teltonika_tcp"])
        // A trickler: one byte of a handshake, then nothing: closed at the handshake timeout.
        let trickler = try TCPTestClient(port: port)
        trickler.send([0x00])
        // A flood from one address: beyond the limit, closed at accept.
        var flood: [TCPTestClient] = []
        for _ in 0..<3 { flood.append(try TCPTestClient(port: port)) }
        let extra = try TCPTestClient(port: port)
        #expect(extra.closedByServer(timeoutMs: 2000))
        #expect(d.notify.waitFor("teltonika_tcp/connection_limit", timeout: 5) != nil)
        #expect(trickler.closedByServer(timeoutMs: 5000))
        #expect(d.notify.waitFor("teltonika_tcp/handshake_timeout", timeout: 5) != nil)
        // A frame announcing more than max_frame_bytes: closed before it is read.
        flood.removeAll()  // (they too were closed at the handshake timeout)
        let big = try TCPTestClient(port: port)
        big.send(TeltonikaEncoder.handshake(imei: "352000000000002"))
        #expect(big.receive(1).bytes == [1])
        big.send([0, 0, 0, 0, 0, 0, 0x40, 0])
        #expect(big.closedByServer())
        #expect(d.notify.waitFor("teltonika_tcp/oversize", timeout: 5) != nil)
        // Meanwhile a device is served, on a slot the closed ones gave back.
        let device = try TCPTestClient(port: port)
        device.send(TeltonikaEncoder.handshake(imei: "352000000000003"))
        #expect(device.receive(1).bytes == [1])
        device.send(TeltonikaEncoder.tcp(records: [Self.record(WallClock.system.nowMs() - 5000)]))
        #expect(device.receive(4).bytes == [0, 0, 0, 1])
        #expect(d.stop() == 0)
    }

    /// More connections than fleetd may open files: accepting pauses
    /// (no spinning on the listening socket), and once the flood is gone a
    /// device is served again.
    @Test func aFloodBeyondTheFileLimitDoesNotSpinTheDoor() throws {
        let d = try DaemonProcess(
            fences: nil, listenExtra: Self.doors,
            wrapper: ["/bin/sh", "-c", "ulimit -n 128 && exec \"$0\" \"$@\""])
        let port = try #require(d.ports["teltonika_tcp"])
        var flood: [TCPTestClient] = []
        for _ in 0..<300 { flood.append(try TCPTestClient(port: port)) }
        Thread.sleep(forTimeInterval: 1)
        let pid = d.process.processIdentifier
        func cpu() -> Double {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else {
                return 0
            }
            return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        let before = cpu()
        Thread.sleep(forTimeInterval: 3)
        let used = cpu() - before
        #expect(used < 1.0, "fleetd used \(used) s of CPU in 3 s while out of descriptors")
        flood.removeAll()
        var served: [UInt8] = []
        let deadline = Date().addingTimeInterval(15)
        while served != [1], Date() < deadline {
            if let c = try? TCPTestClient(port: port) {
                c.send(TeltonikaEncoder.handshake(imei: "352000000000009"))
                served = c.receive(1, timeoutMs: 2000).bytes
            }
        }
        #expect(served == [1])
        #expect(d.stop() == 0)
    }

    @Test func aDeviceThatReconnectsReplacesItsOldConnection() throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let port = try #require(d.ports["gt06"])
        let old = try TCPTestClient(port: port)
        old.send(GT06Encoder.login(imei: "353419036066061", serial: 1))
        #expect(old.receive(10).bytes.count == 10)
        let new = try TCPTestClient(port: port)
        new.send(GT06Encoder.login(imei: "353419036066061", serial: 1))
        #expect(new.receive(10).bytes.count == 10)
        #expect(old.closedByServer())
        #expect(d.stop() == 0)
    }

    /// SIGKILL during a burst of frames: every record answered is stored
    /// after a restart, and a resend of everything stores nothing twice.
    @Test func whatWasAnsweredSurvivesAKillAndNothingIsStoredTwice() throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let imei = "352000000000042"
        let base = WallClock.system.nowMs() - 3_600_000
        let frames = (0..<400).map { k in
            TeltonikaEncoder.tcp(
                records: (0..<5).map { j in Self.record(base + Int64(k * 5 + j) * 1000) })
        }
        let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        c.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(c.receive(1).bytes == [1])
        var answered = 0
        for (k, frame) in frames.enumerated() {
            c.send(frame)
            guard c.receive(4, timeoutMs: 5000).bytes == [0, 0, 0, 5] else { break }
            answered += 1
            if k == 150 { d.crash() }  // killed with frames still coming
        }
        #expect(answered >= 151 && answered < frames.count)
        let again = try DaemonProcess(fences: nil, dir: d.dir, listenExtra: Self.doors)
        let stored = try again.fleetctl("positions", ["--device", imei])
        #expect(
            stored.count >= answered * 5,
            "answered \(answered) frames, stored \(stored.count) fixes")
        // The device sends everything again on its new connection: nothing twice.
        let r = try TCPTestClient(port: try #require(again.ports["teltonika_tcp"]))
        r.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(r.receive(1).bytes == [1])
        for frame in frames {
            r.send(frame)
            #expect(r.receive(4).bytes == [0, 0, 0, 5])
        }
        let all = try again.fleetctl("positions", ["--device", imei])
        #expect(all.count == frames.count * 5)
        #expect(Set(all.compactMap { $0["time"] as? String }).count == all.count)
        #expect(again.stop() == 0)
    }

    /// A simulated fleet over each TCP protocol, one connection per device
    /// (`fleetsim fleet`): every fix answered, each stored once.
    @Test(arguments: TrackerProtocol.carried(by: .tcp))
    func aSimulatedFleetIsAnsweredInFull(_ p: TrackerProtocol) throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let day = 86_400_000
        let start = (Int(Date().timeIntervalSince1970 * 1000) / day - 1) * day
        let sent = try runTool(
            try Binaries.path("fleetsim"),
            [
                "fleet", "--vehicles", "20", "--hours", "1", "--seed", "5", "--proto", p.key,
                "--start", "\(start)", "--speedup", "0", "--duplicates", "0.05",
                "--\(p.key.replacingOccurrences(of: "_", with: "-"))-target",
                "127.0.0.1:\(try #require(d.ports[p.key]))",
            ], timeout: 120, cwd: Binaries.packageRoot)
        #expect(sent.status == 0, "\(sent.out)\(sent.err)")
        #expect(sent.out.contains(" 0 unacknowledged"), "\(sent.out)")
        var stored = 0
        for k in 0..<20 {
            stored += try d.fleetctl("positions", ["--device", SimEncoder.deviceID(p, vehicle: k)])
                .count
        }
        let line = sent.out.split(separator: "\n").first { $0.contains("acknowledged") } ?? ""
        let acked = line.split(separator: " ").firstIndex(of: "acknowledged,").map {
            Int(line.split(separator: " ")[$0 - 1]) ?? -1
        }
        #expect(acked == stored, "\(line); \(stored) stored")
        #expect(d.stop() == 0)
    }

    /// A command through the API to a connected device and its answer back:
    /// queued (202), sent once the device's records are answered, the
    /// device's Codec 12 answer stored; a GT06 relay command typed, and one
    /// for a device heard only over UDP refused (409).
    @Test func aCommandReachesTheDeviceAndItsAnswerComesBack() throws {
        let d = try DaemonProcess(
            fences: nil, http: "127.0.0.1:0", listenExtra: Self.doors)
        let ctl = try Binaries.path("fleetctl")
        let t = try runTool(ctl, ["tokens", "add", "ops", "--role", "operator"] + d.databaseArgs)
        #expect(t.status == 0, "\(t.err)")
        let auth = [
            ("Authorization", "Bearer \(t.out.trimmingCharacters(in: .whitespacesAndNewlines))")
        ]
        let api = HTTPConnection(host: "127.0.0.1", port: try #require(d.ports["http"]))
        func post(_ path: String, _ body: String) throws -> (status: Int, body: [String: Any]) {
            let r = try api.exchange(
                "POST", path, body: Array(body.utf8), contentType: "application/json",
                headers: auth, timeoutMs: 10_000)
            return (
                r.status,
                (try? JSONSerialization.jsonObject(with: Data(r.body.utf8))) as? [String: Any]
                    ?? [:]
            )
        }
        func list(_ device: String) throws -> [[String: Any]] {
            let r = try api.exchange(
                "GET", "/api/v1/devices/\(device)/commands", headers: auth, timeoutMs: 10_000)
            let j = (try? JSONSerialization.jsonObject(with: Data(r.body.utf8))) as? [String: Any]
            return j?["items"] as? [[String: Any]] ?? []
        }
        // A Teltonika device connects and reports.
        let imei = "352093081452251"
        let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
        c.send(TeltonikaEncoder.handshake(imei: imei))
        #expect(c.receive(1).bytes == [1])
        c.send(TeltonikaEncoder.tcp(records: [Self.record(WallClock.system.nowMs() - 5000)]))
        #expect(c.receive(4).bytes == [0, 0, 0, 1])
        // Queued, then sent as Codec 12 on its connection.
        let queued = try post("/api/v1/devices/\(imei)/commands", #"{"text":"getinfo"}"#)
        #expect(queued.status == 202, "\(queued.body)")
        #expect(
            queued.body["status"] as? String == "queued"
                && queued.body["text"] as? String == "getinfo")
        let frame = TeltonikaTCPSession.commandFrame("getinfo")
        #expect(c.receive(frame.count).bytes == frame)
        // The device answers (Codec 12 type 6): stored as the command's response.
        let text = Array("RTC:2026/11/27 5:30 Init:2026/11/27 5:00 UpTime:1800s".utf8)
        let data: [UInt8] = [0x0C, 0x01, 0x06] + be32(UInt32(text.count)) + text + [0x01]
        c.send([0, 0, 0, 0] + be32(UInt32(data.count)) + data + be32(UInt32(CRC16.ibm(data))))
        var answered: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        while answered["status"] as? String != "answered", Date() < deadline {
            answered = try list(imei).first ?? [:]
            if answered["status"] as? String != "answered" { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(answered["status"] as? String == "answered", "\(answered)")
        #expect(answered["response"] as? String == String(decoding: text, as: UTF8.self))
        #expect(answered["sent"] is String && answered["by"] as? String == "token:ops")
        // fleetctl lists it too; the audit log names who queued it.
        let listed = try Self.commands(d, imei)
        #expect(listed.first?["status"] as? String == "answered")
        #expect(try d.fleetctl("audit").contains { $0["action"] as? String == "command.queue" })

        // GT06: a typed relay command becomes the device's own text.
        let g = try TCPTestClient(port: try #require(d.ports["gt06"]))
        g.send(GT06Encoder.login(imei: "353419036066061", serial: 1))
        #expect(g.receive(10).bytes.count == 10)
        g.send(
            GT06Encoder.location(
                timeMs: WallClock.system.nowMs() - 5000, lat: 1, lon: 1, speedKmh: 0, course: 0,
                serial: 2))
        #expect(g.receive(10).bytes.count == 10)
        let relay = try post(
            "/api/v1/devices/353419036066061/commands", #"{"type":"output","index":1,"on":true}"#)
        #expect(relay.status == 202 && relay.body["text"] as? String == "Relay,1#", "\(relay.body)")
        let sent = g.receive(GT06Session.commandFrame("Relay,1#", flag: 1, serial: 1).count).bytes
        #expect(sent == GT06Session.commandFrame("Relay,1#", flag: 1, serial: 1))

        // Heard over UDP only: no commands (409); unknown: 404; bad bodies: 422.
        let udp = try UDPClient(host: "127.0.0.1", port: d.port)
        udp.send(
            Array(
                #"{"device":"van-9","time":\#(WallClock.system.nowMs() - 1000),"lat":48,"lon":11,"seq":1}"#
                    .utf8))
        _ = udp.receive(timeoutMs: 5000)
        #expect(try post("/api/v1/devices/van-9/commands", #"{"text":"getinfo"}"#).status == 409)
        #expect(try post("/api/v1/devices/nobody/commands", #"{"text":"getinfo"}"#).status == 404)
        #expect(try post("/api/v1/devices/\(imei)/commands", #"{"text":"a\u0007b"}"#).status == 422)
        #expect(
            try post("/api/v1/devices/\(imei)/commands", #"{"type":"output","index":9,"on":true}"#)
                .status == 422)
        #expect(d.stop() == 0)
    }

    /// `fleetctl commands list DEVICE --json`, parsed.
    static func commands(_ d: DaemonProcess, _ device: String) throws -> [[String: Any]] {
        let r = try runTool(
            try Binaries.path("fleetctl"), ["commands", "list", device, "--json"] + d.databaseArgs)
        return r.out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// A command queued by `fleetctl` for a device not connected is sent
    /// when it connects (the daemon polls the store every 2 s).
    @Test func aQueuedCommandWaitsForTheDeviceToConnect() throws {
        let d = try DaemonProcess(fences: nil, listenExtra: Self.doors)
        let id = "4210051415"
        // Heard once, so that it is known; then gone.
        do {
            let c = try TCPTestClient(port: try #require(d.ports["h02"]))
            c.send(
                H02Encoder.v1(
                    id: id, timeMs: WallClock.system.nowMs() - 5000, lat: 1, lon: 1, speedKmh: 0,
                    course: 0))
            #expect(!c.receive(30).bytes.isEmpty)
        }
        let q = try runTool(
            try Binaries.path("fleetctl"), ["commands", "send", id, "S20,1,1"] + d.databaseArgs)
        #expect(q.status == 0, "\(q.err)")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try Self.commands(d, id).first?["status"] as? String == "queued")
        let c = try TCPTestClient(port: try #require(d.ports["h02"]))
        c.send(H02Encoder.heartbeat(id: id))
        let got = String(decoding: c.receive(200, timeoutMs: 6000).bytes, as: UTF8.self)
        #expect(got.contains("*HQ,\(id),S20,") && got.hasSuffix(",1,1#"), "\(got)")
        #expect(d.stop() == 0)
    }
}

/// A big-endian 4-byte integer.
func be32(_ v: UInt32) -> [UInt8] {
    [
        UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
        UInt8(truncatingIfNeeded: v),
    ]
}
