import FleetModel
import Foundation
import Testing

@testable import FleetProtocols

/// The TCP protocols' sessions against `Tests/Fixtures/tcp-vectors.json`
/// (frames as devices send them, with the values and answers an
/// independent decoder gave), and against what a hostile peer sends.
@Suite struct StreamSessionTests {
    nonisolated(unsafe) static let vectors: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/tcp-vectors.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }()

    static func vector(_ family: String, _ id: String) throws -> [String: Any] {
        let list = try #require(vectors[family] as? [[String: Any]])
        return try #require(list.first { $0["id"] as? String == id })
    }

    static func hexText(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    static let now: Int64 = 1_795_000_000_000

    /// Feeds `input` to `session` as one buffer; every step until it needs more.
    static func run(
        _ session: any StreamSession, _ input: [UInt8], known: (String) -> Bool = { _ in true }
    )
        -> (steps: [StreamStep], rest: Int)
    {
        var buffer = input
        var steps: [StreamStep] = []
        while true {
            let step = buffer.withUnsafeBufferPointer { session.next($0, nowMs: now, known: known) }
            if step == .needMore { break }
            steps.append(step)
            guard case .unit(let consumed, _) = step else { break }
            buffer.removeFirst(consumed)
        }
        return (steps, buffer.count)
    }

    static func fixes(_ step: StreamStep) -> WireDecoding? {
        if case .unit(_, .fixes(let d)) = step { return d }
        return nil
    }

    static func check(_ fix: Fix, _ e: [String: Any]) throws {
        if let t = e["time_utc"] as? String {
            #expect(fix.time == RFC3339.parse(Array(t.utf8)), "time")
        }
        if let lat = e["lat"] as? Double {
            #expect(abs(fix.lat - lat) < 1e-6, "lat \(fix.lat) vs \(lat)")
        }
        if let lon = e["lon"] as? Double {
            #expect(abs(fix.lon - lon) < 1e-6, "lon \(fix.lon) vs \(lon)")
        }
        if let v = e["speed_kmh"] as? Double {
            #expect(abs((fix.speedKmh ?? -1) - v) < 1e-3, "speed")
        }
        if let v = e["course_deg"] as? Double { #expect(fix.course == v, "course") }
        if let v = e["altitude_m"] as? Double { #expect(fix.altM == v, "altitude") }
        if let v = e["satellites"] as? Int { #expect(fix.sats == v, "satellites") }
        if e.keys.contains("ignition") {
            #expect(fix.ignition == e["ignition"] as? Bool, "ignition")
        }
        if let v = e["gps_valid"] as? Bool { #expect(fix.valid == v, "valid") }
        // "normal": no alarm; a code only one model knows is no alarm either.
        if let a = e["alarm"] as? String {
            #expect(fix.extra?.alarm == (a == "normal" || a.contains("/") ? nil : a), "alarm")
        }
    }

    // MARK: Teltonika

    @Test(arguments: ["c8-wiki-1", "c8-fmb-ign-2", "c8-neg-alt", "c8e-vin", "c8e-2rec"])
    func teltonikaFramesDecodeAsTheVectorsSay(_ id: String) throws {
        let v = try Self.vector("teltonika", id)
        let expect = try #require(v["expect"] as? [String: Any])
        let session = TeltonikaTCPSession()
        let imei = try Self.vector("teltonika", "imei-1")
        let handshake = hex(try #require(imei["hex"] as? String))
        let frame = hex(try #require(v["hex"] as? String))
        let (steps, rest) = Self.run(session, handshake + frame)
        #expect(rest == 0)
        try #require(steps.count == 2)
        #expect(steps[0] == .unit(consumed: handshake.count, .answer([1])))
        #expect(session.device == "123456789012345")
        let d = try #require(Self.fixes(steps[1]))
        #expect(Self.hexText(d.reply?.bytes ?? []) == expect["server_ack_hex"] as? String)
        let records = try #require(expect["records"] as? [[String: Any]])
        #expect(d.fixes.count == records.count)
        for (fix, e) in zip(d.fixes, records) {
            #expect(fix.device == "123456789012345")
            try Self.check(fix, e)
        }
    }

    @Test func aFrameWithAZeroLengthLosesTheFramingAndIsNotAnswered() throws {
        let session = TeltonikaTCPSession()
        let v = try Self.vector("teltonika", "c8-bad-length")
        let (steps, _) = Self.run(
            session,
            TeltonikaEncoder.handshake(imei: "123456789012345") + hex(v["hex"] as! String))
        #expect(steps.count == 2)
        guard case .close(let r, let answer) = steps.last else {
            Issue.record("not closed"); return
        }
        #expect(r.reason == .badLength)
        #expect(answer.isEmpty)
    }

    @Test func aBadCRCIsRefusedUnansweredAndTheConnectionGoesOn() throws {
        let session = TeltonikaTCPSession()
        var frame = TeltonikaEncoder.tcp(records: [.init(time: Self.now, lat: 48.1, lon: 11.5)])
        frame[frame.count - 1] ^= 0xFF
        let good = TeltonikaEncoder.tcp(records: [.init(time: Self.now, lat: 48.1, lon: 11.5)])
        let (steps, rest) = Self.run(
            session, TeltonikaEncoder.handshake(imei: "352000000000001") + frame + good)
        #expect(rest == 0)
        try #require(steps.count == 3)
        guard case .unit(_, .refused(let r)) = steps[1] else { Issue.record("not refused"); return }
        #expect(r.reason == .badCRC)
        #expect(Self.fixes(steps[2])?.fixes.count == 1)
    }

    @Test func anUnknownIMEIIsAnsweredZeroAndClosed() {
        let session = TeltonikaTCPSession()
        let (steps, _) = Self.run(
            session, TeltonikaEncoder.handshake(imei: "352000000000001"), known: { _ in false })
        guard case .close(let r, let answer) = steps.first else {
            Issue.record("not closed"); return
        }
        #expect(r.reason == .unknownDevice)
        #expect(answer == [0])
        #expect(session.device == nil)
    }

    @Test func dataBeforeTheHandshakeClosesTheConnection() {
        let frame = TeltonikaEncoder.tcp(records: [.init(time: Self.now, lat: 48.1, lon: 11.5)])
        let (steps, _) = Self.run(TeltonikaTCPSession(), frame)
        guard case .close(let r, _) = steps.first else { Issue.record("not closed"); return }
        #expect(r.reason == .noIdentity)
    }

    @Test func aFrameLongerThanTheLimitClosesBeforeItIsBuffered() {
        let session = TeltonikaTCPSession(maxFrame: 1280)
        // A header announcing 1 MB: refused at its 8th byte, not after 1 MB.
        let (steps, _) = Self.run(
            session,
            TeltonikaEncoder.handshake(imei: "352000000000001") + [0, 0, 0, 0, 0, 0x10, 0, 0])
        guard case .close(let r, _) = steps.last else { Issue.record("not closed"); return }
        #expect(r.reason == .oversize)
    }

    @Test func keepAliveBytesAndCommandAnswersAreUnits() throws {
        let v = try Self.vector("teltonika", "c12-resp-ascii")
        let session = TeltonikaTCPSession()
        let (steps, rest) = Self.run(
            session,
            TeltonikaEncoder.handshake(imei: "352000000000001") + [0xFF]
                + hex(v["hex"] as! String))
        #expect(rest == 0)
        #expect(steps[1] == .unit(consumed: 1, .answer([])))
        guard case .unit(_, .commandAnswer(let text)) = steps[2] else {
            Issue.record("no answer"); return
        }
        #expect(text == "#FM2=262032761721396,26203,07.02.05\r\n")
    }

    @Test func commandFramesAreTheVectorsBytes() throws {
        let derived = try #require(Self.vectors["derived"] as? [[String: Any]])
        let hex = { (id: String) in derived.first { $0["id"] as? String == id }?["hex"] as? String }
        #expect(
            Self.hexText(TeltonikaTCPSession.commandFrame("getinfo")) == hex("c12-getinfo-encoded"))
        #expect(
            Self.hexText(TeltonikaTCPSession.commandFrame("setdigout 1"))
                == hex("c12-setdigout-1-encoded"))
        let v = try Self.vector("teltonika", "c12-cmd-setdigout11")
        #expect(
            Self.hexText(TeltonikaTCPSession.commandFrame("setdigout 11")) == v["hex"] as? String)
        #expect(CRC16.ibm(Array("123456789".utf8)) == 0xBB3D)
        #expect(CRC16.x25(Array("123456789".utf8)) == 0x906E)
    }

    // MARK: GT06

    static let gt06Login = "login-2"

    @Test(arguments: ["login-doc", "login-2"])
    func gt06LoginsAreAnswered(_ id: String) throws {
        let v = try Self.vector("gt06", id)
        let expect = try #require(v["expect"] as? [String: Any])
        let session = GT06Session()
        let (steps, rest) = Self.run(session, hex(v["hex"] as! String))
        #expect(rest == 0)
        guard case .unit(_, .answer(let a)) = steps.first else {
            Issue.record("not answered"); return
        }
        #expect(Self.hexText(a) == expect["server_response_hex"] as? String)
        #expect(session.device == expect["imei"] as? String)
    }

    @Test(arguments: ["loc12-tail", "loc22-moving", "alarm16-doc", "alarm16-nolbs", "alarm26-2"])
    func gt06PositionsDecodeAsTheVectorsSay(_ id: String) throws {
        let v = try Self.vector("gt06", id)
        let expect = try #require(v["expect"] as? [String: Any])
        let session = GT06Session()
        let login = hex(try Self.vector("gt06", Self.gt06Login)["hex"] as! String)
        let (steps, rest) = Self.run(session, login + hex(v["hex"] as! String))
        #expect(rest == 0)
        try #require(steps.count == 2)
        let d = try #require(Self.fixes(steps[1]))
        #expect(Self.hexText(d.reply?.bytes ?? []) == expect["server_response_hex"] as? String)
        let fix = try #require(d.fixes.first)
        #expect(fix.device == "353419036066061")
        try Self.check(fix, expect)
    }

    @Test func gt06HeartbeatsAreAnsweredAndTheirBitsKept() throws {
        let v = try Self.vector("gt06", "heartbeat-2")
        let session = GT06Session()
        let login = hex(try Self.vector("gt06", Self.gt06Login)["hex"] as! String)
        let on = GT06Encoder.heartbeat(info: 0x06, serial: 9)  // ACC high, charging
        let position = GT06Encoder.location(
            timeMs: Self.now, lat: 48.1, lon: 11.5, speedKmh: 30, course: 90, serial: 10)
        let (steps, rest) = Self.run(
            session, login + hex(v["hex"] as! String) + on + position)
        #expect(rest == 0)
        try #require(steps.count == 4)
        guard case .unit(_, .answer(let a)) = steps[1] else { Issue.record("not answered"); return }
        #expect(
            Self.hexText(a) == (v["expect"] as? [String: Any])?["server_response_hex"] as? String)
        let fix = try #require(Self.fixes(steps[3])?.fixes.first)
        #expect(fix.ignition == true)  // 0x12 has no ACC: the heartbeat's
        #expect(fix.extra?.charging == true)
        #expect(fix.time == Self.now / 1000 * 1000)
        #expect(abs(fix.lat - 48.1) < 1e-5 && abs(fix.lon - 11.5) < 1e-5)
    }

    @Test func gt06AlarmsAreNamed() throws {
        let session = GT06Session()
        let login = hex(try Self.vector("gt06", Self.gt06Login)["hex"] as! String)
        var bytes = login
        for (k, code) in [UInt8(0x01), 0x02, 0x03, 0x19, 0x00, 0x77].enumerated() {
            bytes += GT06Encoder.alarm(
                timeMs: Self.now + Int64(k) * 1000, lat: 48.1, lon: 11.5, speedKmh: 0, course: 0,
                info: 0x02, alarm: code, serial: UInt16(10 + k))
        }
        let (steps, rest) = Self.run(session, bytes)
        #expect(rest == 0)
        let fixes = steps.dropFirst().compactMap { Self.fixes($0)?.fixes.first }
        #expect(
            fixes.map { $0.extra?.alarm }
                == ["sos", "power_cut", "vibration", "low_battery", nil, nil])
        #expect(fixes.allSatisfy { $0.ignition == true })
    }

    @Test func gt06BrokenFramesAreRefusedOrClose() throws {
        let login = hex(try Self.vector("gt06", Self.gt06Login)["hex"] as! String)
        // The vendor document's example: its printed CRC is wrong.
        let doc = hex(try Self.vector("gt06", "loc12-doc")["hex"] as! String)
        var (steps, _) = Self.run(GT06Session(), login + doc)
        guard case .unit(_, .refused(let r)) = steps.last else {
            Issue.record("not refused"); return
        }
        #expect(r.reason == .badCRC)
        // Shorter than its length byte, then the next frame's start: no 0D 0A where the length ends.
        let truncated = hex(try Self.vector("gt06", "login-truncated")["hex"] as! String)
        (steps, _) = Self.run(GT06Session(), truncated + login)
        guard case .close(let r2, _) = steps.last else { Issue.record("not closed"); return }
        #expect(r2.reason == .badFrame)
        // A position before the login.
        (steps, _) = Self.run(
            GT06Session(),
            GT06Encoder.location(
                timeMs: Self.now, lat: 1, lon: 1, speedKmh: 0, course: 0, serial: 1))
        guard case .close(let r3, _) = steps.last else { Issue.record("not closed"); return }
        #expect(r3.reason == .noIdentity)
    }

    @Test func gt06LoginTimeZonesAndTheConfiguredOffsetApply() throws {
        // Type id 100f, zone word 190a: GMT-04:00 (bit 3 west); local 10:00 is 14:00 UTC.
        var content = hex("0353419036066061") + [0x10, 0x0F, 0x19, 0x0A]
        let login = GT06Encoder.frame(proto: 0x01, content: content, serial: 1)
        let local = RFC3339.epochMs(year: 2026, month: 11, day: 27, hour: 10, minute: 0, second: 0)
        let position = GT06Encoder.location(
            timeMs: local, lat: 1, lon: 1, speedKmh: 0, course: 0, serial: 2)
        var (steps, _) = Self.run(GT06Session(), login + position)
        #expect(Self.fixes(steps[1])?.fixes.first?.time == local + 4 * 3_600_000)
        // No zone in the login: the configured offset (UTC+02:00).
        content = hex("0353419036066061")
        (steps, _) = Self.run(
            GT06Session(utcOffsetMinutes: 120),
            GT06Encoder.frame(proto: 0x01, content: content, serial: 1) + position)
        #expect(Self.fixes(steps[1])?.fixes.first?.time == local - 2 * 3_600_000)
    }

    @Test func gt06CommandFramesAreTheVectorsBytes() throws {
        let v = try Self.vector("gt06", "cmd-relay-1")
        #expect(Self.hexText(GT06Session.commandFrame("Relay,1#")) == v["hex"] as? String)
    }

    @Test func gt06FramesAreReadByLengthNotByTheirStopBytes() throws {
        // A longitude whose bytes hold 0D 0A: a framer splitting on 0D 0A would cut it.
        let login = hex(try Self.vector("gt06", Self.gt06Login)["hex"] as! String)
        let lon = Double(0x0D0A_0000) / 30_000 / 60
        let position = GT06Encoder.location(
            timeMs: Self.now, lat: 1, lon: lon, speedKmh: 0, course: 0, serial: 2)
        #expect(Self.hexText(position).contains("0d0a0000"))
        let (steps, rest) = Self.run(GT06Session(), login + position)
        #expect(rest == 0)
        #expect(abs((Self.fixes(steps[1])?.fixes.first?.lon ?? 0) - lon) < 1e-6)
    }

    // MARK: H02

    @Test(arguments: ["v1-west", "v1-dash-coords", "v1-plain"])
    func h02PositionsDecodeAsTheVectorsSay(_ id: String) throws {
        let v = try Self.vector("h02", id)
        let expect = try #require(v["expect"] as? [String: Any])
        let session = H02Session()
        let (steps, rest) = Self.run(session, Array((v["text"] as! String).utf8))
        #expect(rest == 0)
        let first = try #require(steps.first)
        let d = try #require(Self.fixes(first))
        let fix = try #require(d.fixes.first)
        #expect(fix.device == expect["device_id"] as? String)
        try Self.check(fix, expect)
        let answer = String(decoding: d.reply?.bytes ?? [], as: UTF8.self)
        #expect(answer == "*HQ,\(fix.device),V4,V1,\(H02Session.stamp(Self.now))#")
    }

    @Test func h02HeartbeatsAreEchoedAndOtherDevicesRefused() throws {
        let v = try Self.vector("h02", "htbt")
        let session = H02Session()
        let other = Array("*HQ,4210051415,HTBT,100#".utf8)
        let (steps, _) = Self.run(
            session, Array((v["text"] as! String).utf8) + [0x0D, 0x0A] + other)
        let text = v["text"] as! String
        #expect(
            steps.first
                == .unit(
                    consumed: text.utf8.count, .answer(Array("*HQ,135790246811220,HTBT#".utf8))))
        guard case .close(let r, _) = steps.last else { Issue.record("not closed"); return }
        #expect(r.reason == .wrongDevice)
    }

    @Test func h02LinesWithoutAnEndCloseAtTheLimit() {
        let (steps, _) = Self.run(
            H02Session(maxFrame: 512), Array(repeating: UInt8(ascii: "*"), count: 600))
        guard case .close(let r, _) = steps.last else { Issue.record("not closed"); return }
        #expect(r.reason == .oversize)
        let (binary, _) = Self.run(H02Session(), Array("$4210051415".utf8))
        guard case .close(let r2, _) = binary.last else { Issue.record("not closed"); return }
        #expect(r2.reason == .badFrame)
    }

    @Test func h02EncoderRoundTrips() throws {
        let bytes = H02Encoder.v1(
            id: "4100000007", timeMs: Self.now / 1000 * 1000, lat: -33.5, lon: -70.25, speedKmh: 50,
            course: 271, ignition: true)
        let (steps, _) = Self.run(H02Session(), bytes)
        let first = try #require(steps.first)
        let fix = try #require(Self.fixes(first)?.fixes.first)
        #expect(fix.time == Self.now / 1000 * 1000)
        #expect(abs(fix.lat + 33.5) < 1e-5 && abs(fix.lon + 70.25) < 1e-5)
        #expect(abs((fix.speedKmh ?? 0) - 50) < 0.01)
        #expect(fix.ignition == true)
    }

    // MARK: Any input

    /// Random bytes, random cuts and flipped bits of valid frames: no
    /// session traps, and each step consumes what it says it does.
    @Test(arguments: TrackerProtocol.carried(by: .tcp))
    func noInputTraps(_ p: TrackerProtocol) throws {
        var rng = SystemRandomNumberGenerator()
        let valid: [UInt8] =
            switch p {
            case .gt06:
                GT06Encoder.login(imei: "353419036066061", serial: 1)
                    + GT06Encoder.location(
                        timeMs: Self.now, lat: 1, lon: 2, speedKmh: 3, course: 4, acc: true,
                        serial: 2)
            case .h02:
                H02Encoder.v1(id: "41", timeMs: Self.now, lat: 1, lon: 2, speedKmh: 3, course: 4)
            default:
                TeltonikaEncoder.handshake(imei: "1")
                    + TeltonikaEncoder.tcp(records: [.init(time: Self.now, lat: 1, lon: 2)])
            }
        for round in 0..<3000 {
            var input: [UInt8]
            if round % 3 == 0 {
                input = (0..<Int.random(in: 0...300, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }
            } else {
                input = valid
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    input[Int.random(in: 0..<input.count, using: &rng)] ^= UInt8.random(
                        in: 1...255, using: &rng)
                }
                if round % 3 == 2 {
                    input = Array(input.prefix(Int.random(in: 0...input.count, using: &rng)))
                }
            }
            let session = try #require(p.makeSession(maxFrame: 1024))
            let (_, rest) = Self.run(session, input)
            #expect(rest <= input.count)
        }
    }
}
