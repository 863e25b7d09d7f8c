import FleetModel
import Testing

@testable import FleetProtocols

func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}

/// Teltonika's own UDP example (Data Sending Protocols, "Codec 8 Extended" over
/// UDP). Its codec byte says 0x8E but its IO section is laid out as Codec 8
/// (one-byte ids and counts), so read strictly it is malformed.
let wikiExample =
    "00A1CAFE001B000F3335363330373034323434313031338E010000013FEBDD19C8000F0E9FF0209A718000690000120000001E09010002000300040016014703F0001504C8000C0900910A00440B004D130044431555440000B5000BB60005422E9B180000CD0386CE000107C700000000F10000601A460000013C4800000BB84900000BB84A00000BB84C00000000024E0000000000000000CF000000000000000001"

@Suite struct TeltonikaDecoderTests {
    @Test func theWikiExampleAsCodec8() throws {
        var bytes = hex(wikiExample)
        bytes[23] = 0x08
        let p = try TeltonikaDecoder.decode(bytes).get()
        #expect(p.packetId == 0xCAFE)
        #expect(p.avlPacketId == 0x1B)
        #expect(p.imei == "356307042441013")
        #expect(p.codec == 0x08)
        #expect(p.fixes.count == 1)
        let f = p.fixes[0]
        #expect(f.time == 1_374_051_703_240)
        #expect(f.lon == 25.2616688)
        #expect(f.lat == 54.6992512)
        #expect(f.altM == 105 && f.course == 0 && f.sats == 18 && f.speedKmh == 0)
        #expect(f.valid)
        #expect(f.ignition == nil)
        #expect(f.extra?.movement == false)
        #expect(f.extra?.gsmSignal == 4)
        #expect(f.extra?.externalVoltageMv == 11931)
        #expect(f.extra?.priority == 0)
        let io = TeltonikaIO.json(f.extra!.ioRaw!, codec: f.extra!.ioCodec)
        #expect(
            io.hasPrefix(#"{"1":0,"2":0,"3":0,"4":0,"22":1,"71":3,"240":0,"21":4,"200":0,"9":145,"#)
        )
        #expect(
            io.contains(#""66":11931"#) && io.contains(#""241":24602"#)
                && io.hasSuffix(#""78":0,"207":0}"#))
        #expect(
            TeltonikaPacket.reply(packetId: p.packetId, avlPacketId: p.avlPacketId, accepted: 1)
                == hex("0005CAFE011B01"))
    }

    @Test func theWikiExampleAsWrittenIsRejected() {
        guard case .failure(let e) = TeltonikaDecoder.decode(hex(wikiExample)) else {
            Issue.record("a Codec 8 IO section under a 0x8E codec byte must not decode")
            return
        }
        #expect([.truncated, .countMismatch, .trailingBytes].contains(e.reason))
    }

    @Test(arguments: [UInt8(0x08), 0x8E, 0x10])
    func everyCodecRoundTrips(_ codec: UInt8) throws {
        var r1 = TeltonikaEncoder.Record(
            time: 1_700_000_000_123, lat: -33.8688197, lon: 151.2092955)
        r1.altM = -6
        r1.angle = 359
        r1.sats = 11
        r1.speedKmh = 87
        r1.priority = 1
        r1.io = [
            (239, 1, 1), (240, 1, 1), (21, 1, 5), (66, 2, 12_850), (16, 4, 123_456), (69, 1, 1),
            (11, 8, 1 << 40),
        ]
        if codec == 0x8E { r1.nx = [(300, [0xDE, 0xAD, 0xBE, 0xEF])] }
        var r2 = TeltonikaEncoder.Record(time: 1_700_000_001_123, lat: 0, lon: 0)
        r2.sats = 0
        let bytes = TeltonikaEncoder.udp(
            avlPacketId: 7, imei: "352093081452251", codec: codec, records: [r1, r2])
        let p = try TeltonikaDecoder.decode(bytes).get()
        #expect(p.fixes.count == 2)
        let f = p.fixes[0]
        #expect(f.lat == -33.8688197 && f.lon == 151.2092955)
        #expect(f.altM == -6 && f.course == 359 && f.sats == 11 && f.speedKmh == 87)
        #expect(f.ignition == true)
        #expect(
            f.extra?.movement == true && f.extra?.gsmSignal == 5
                && f.extra?.externalVoltageMv == 12_850)
        #expect(f.extra?.odometerM == 123_456 && f.extra?.gnssStatus == 1 && f.extra?.priority == 1)
        let io = TeltonikaIO.json(f.extra!.ioRaw!, codec: codec)
        #expect(io.contains(#""11":1099511627776"#))
        if codec == 0x8E { #expect(io.contains(#""300":"deadbeef""#)) }
        // No GNSS fix: stored as invalid.
        #expect(p.fixes[1].valid == false)
    }

    /// Crash, green driving and iButton elements: the alarm (the most
    /// urgent of a record's) and the driver's key.
    @Test func eventElementsBecomeAlarmsAndTheDriver() throws {
        func record(_ io: [(id: UInt16, width: Int, value: UInt64)], at k: Int64)
            -> TeltonikaEncoder.Record
        {
            var r = TeltonikaEncoder.Record(time: 1_700_000_000_000 + k, lat: 48.1, lon: 11.5)
            r.sats = 9
            r.io = io
            return r
        }
        let records = [
            record([(253, 1, 2)], at: 0),
            record([(253, 1, 1), (247, 1, 1)], at: 1000),
            record([(253, 1, 9), (78, 8, 0x0123_4567_89AB_CDEF)], at: 2000),
            record([(78, 8, 0), (252, 1, 1)], at: 3000),
            record([(249, 1, 0)], at: 4000),
        ]
        let p = try TeltonikaDecoder.decode(
            TeltonikaEncoder.udp(
                avlPacketId: 1, imei: "352093081452251", codec: 0x8E, records: records)
        ).get()
        #expect(
            p.fixes.map { $0.extra?.alarm } == ["harsh_braking", "crash", nil, "power_cut", nil])
        #expect(p.fixes.map { $0.extra?.driver } == [nil, nil, "0123456789ABCDEF", "", nil])
    }

    @Test func strictness() {
        let good = TeltonikaEncoder.udp(
            avlPacketId: 1, imei: "352093081452251",
            records: [.init(time: 1_700_000_000_000, lat: 1, lon: 2)])
        func reason(_ b: [UInt8]) -> RejectReason? {
            if case .failure(let e) = TeltonikaDecoder.decode(b) { return e.reason }
            return nil
        }
        #expect(reason(good) == nil)
        // Two datagrams fused are not one packet.
        #expect(reason(good + good) == .badLength)
        var lying = good
        lying[1] &+= 1
        #expect(reason(lying) == .badLength)
        var counts = good
        counts[counts.count - 1] = 2
        #expect(reason(counts) == .countMismatch)
        var imei = good
        imei[10] = UInt8(ascii: "x")
        #expect(reason(imei) == .badIMEI)
        var codec = good
        codec[23] = 0x0C
        #expect(reason(codec) == .unsupportedCodec)
        let farLat = TeltonikaEncoder.udp(
            avlPacketId: 1, imei: "1", records: [.init(time: 1, lat: 91, lon: 2)])
        #expect(reason(farLat) == .latOutOfRange)
        // Truncated anywhere: rejected, never a trap.
        for n in 0..<good.count {
            var cut = Array(good[0..<n])
            if cut.count >= 2 {
                cut[0] = UInt8((cut.count - 2) >> 8)
                cut[1] = UInt8((cut.count - 2) & 0xFF)
            }
            #expect(reason(cut) != nil)
        }
    }
}
