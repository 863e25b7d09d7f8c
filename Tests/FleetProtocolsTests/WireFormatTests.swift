import FleetProtocols
import Testing

/// Each protocol through the one interface the daemon knows.
@Suite struct WireFormatTests {
    let sender = WireSender(text: "192.0.2.10:4001", ip: "192.0.2.10")

    func decode(_ format: any WireFormat, _ text: String, nowMs: Int64 = 0) -> WireDecoding {
        decode(format, Array(text.utf8), nowMs: nowMs)
    }

    func decode(_ format: any WireFormat, _ bytes: [UInt8], nowMs: Int64 = 0) -> WireDecoding {
        bytes.withUnsafeBufferPointer { format.decode($0, sender: { sender }, nowMs: nowMs) }
    }

    @Test func jsonNamesEveryFixBySeqAndAnswersForRefusedOnes() throws {
        let f = JSONWireFormat()
        let d = decode(
            f,
            """
            {"device":"a","time":1700000000000,"lat":48.1,"lon":11.5,"seq":1}
            {"device":"a","time":1700000001000,"lat":91,"lon":11.5,"seq":2}
            {"device":"a","time":1700000002000,"lat":48.1,"lon":11.5,"seq":3}
            """)
        #expect(d.fixes.count == 2)
        #expect(d.tokens == [1, 3])
        #expect(d.items == [0, 2])
        #expect(d.rejections.map(\.reason) == [.latOutOfRange])
        #expect(f.locate(fix: 1, in: d) == "line 3")
        let all = try #require(d.reply)
        #expect(
            JSONReply.parse(all.bytes) == JSONReply(acked: [1, 3], rejected: [(2, .latOutOfRange)]))
        // The door screens fix 0 out: its seq moves to the rejected list.
        let some = try #require(f.reply(to: d, refused: [(0, .futureTime)]))
        #expect(
            JSONReply.parse(some.bytes)
                == JSONReply(acked: [3], rejected: [(1, .futureTime), (2, .latOutOfRange)]))
    }

    @Test func aJSONSyntaxErrorIsPlacedByLineOnceAndByColumn() throws {
        let f = JSONWireFormat()
        let d = decode(
            f, "{\"device\":\"a\",\"time\":1700000000000,\"lat\":48.1,\"lon\":11.5}\n{\"device\":")
        let r = try #require(d.rejections.first)
        #expect(r.reason == .jsonSyntax)
        #expect(f.locate(item: r.item) == "line 2")
        #expect(r.detail.hasPrefix("column "))
        #expect(!r.detail.contains("line"))
    }

    /// 1 984 broken nine-byte lines once drew 65 KB of rejections for
    /// 17.9 KB in: a reply is never larger than the datagram.
    @Test func aJSONReplyIsNeverLargerThanItsDatagram() throws {
        let f = JSONWireFormat()
        for lines in [1, 3, 50, 1984] {
            let text = String(repeating: "{\"seq\":1\n", count: lines)
            let d = decode(f, text)
            #expect(d.rejections.count == lines)
            let size = d.reply?.count ?? 0
            #expect(
                size <= text.utf8.count,
                "\(lines) lines: \(size) bytes out for \(text.utf8.count) in")
        }
        // Good lines beside them are still acknowledged, every one.
        var text = ""
        for k in 1...20 {
            text +=
                #"{"seq":\#(k),"device":"t1","time":1700000000000,"lat":48.1,"lon":11.5}"# + "\n"
        }
        text += String(repeating: "{\"seq\":99\n", count: 500)
        let d = decode(f, text)
        let bytes = try #require(d.reply).bytes
        let reply = try #require(JSONReply.parse(bytes))
        #expect(reply.acked == Array(1...20))
        #expect(bytes.count <= text.utf8.count)
    }

    @Test func jsonWithoutSeqOwesNoReply() {
        let d = decode(
            JSONWireFormat(), #"{"device":"a","time":1700000000000,"lat":48.1,"lon":11.5}"#)
        #expect(d.fixes.count == 1)
        #expect(d.reply == nil)
    }

    @Test func teltonikaOwesItsSevenByteAcknowledgementInline() throws {
        let f = TeltonikaWireFormat()
        let bytes = TeltonikaEncoder.udp(
            packetId: 0x1234, avlPacketId: 7, imei: "356307042441013",
            records: [
                .init(time: 1_700_000_000_000, lat: 48.1, lon: 11.5),
                .init(time: 1_700_000_001_000, lat: 48.2, lon: 11.5),
            ])
        let d = decode(f, bytes)
        #expect(d.fixes.count == 2)
        let reply = try #require(d.reply)
        #expect(reply.bytes == TeltonikaPacket.reply(packetId: 0x1234, avlPacketId: 7, accepted: 2))
        #expect(reply.count == 7)
        // Screened-out records are still acknowledged; an unknown device is not answered.
        #expect(f.reply(to: d, refused: [(1, .futureTime)]) == reply)
        #expect(f.reply(to: d, refused: [(0, .unknownDevice), (1, .unknownDevice)]) == nil)
        #expect(f.locate(fix: 1, in: d) == "IMEI 356307042441013 record 1")
    }

    @Test func teltonikaGarbageIsRefusedWhole() {
        let d = decode(TeltonikaWireFormat(), [0, 1, 2, 3])
        #expect(d.refusal != nil)
        #expect(d.fixes.isEmpty)
        #expect(d.reply == nil)
    }

    @Test func nmeaPairsPerSenderNamesDevicesByAddressAndNeverReplies() {
        let f = NMEAWireFormat(devices: ["192.0.2.10": "boat-7"])
        let rmc = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n"
        let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n"
        let first = decode(f, rmc, nowMs: 1000)
        #expect(first.fixes.isEmpty)  // the RMC waits for its GGA
        let second = decode(f, gga, nowMs: 1100)
        #expect(second.fixes.map(\.device) == ["boat-7"])
        #expect(second.fixes.first?.sats == 8)
        #expect(second.reply == nil)
        // An RMC whose GGA never comes is released by the flush a second later.
        let later = NMEAEncoder.checksummed(
            "$GPRMC,123520,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        #expect(decode(f, later + "\r\n", nowMs: 2000).rejections.isEmpty)
        #expect(f.flush(nowMs: 2500).isEmpty)
        #expect(f.flush(nowMs: 3000).flatMap(\.fixes).count == 1)
    }

    @Test func nmeaFromAnUnknownSenderIsRefusedWhole() {
        let f = NMEAWireFormat()
        let d = decode(
            f, "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n")
        #expect(d.refusal?.reason == .unknownDevice)
        #expect(d.refusal?.detail.contains("192.0.2.10:4001") == true)
    }

    @Test func longRepliesAndShortOnesKeepTheirBytes() {
        for n in [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 300] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) }
            let r = WireReply(bytes)
            #expect(r.bytes == bytes)
            #expect(r.count == n)
            #expect(r == WireReply(bytes))
        }
        // A JSON acknowledgement of a 14-digit seq is held inline, in the
        // 26 bytes every reply takes (no block of its own per queued fix).
        #expect(Array(#"{"ack":[12345678901234]}"#.utf8).count == WireReply.inlineMax)
        #expect(MemoryLayout<WireReply>.size == 26)
    }
}
