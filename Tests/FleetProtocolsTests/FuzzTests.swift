import Foundation
import Testing

@testable import FleetProtocols

/// A small fast generator (xorshift*), seeded: every run replays exactly.
struct FuzzRNG {
    var s: UInt64
    mutating func next() -> UInt64 {
        s ^= s >> 12
        s ^= s << 25
        s ^= s >> 27
        return s &* 2_685_821_657_736_338_717
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}

/// Mutates `seed` the ways real damage looks: bit flips, random bytes,
/// truncation, duplicated or dropped runs, random garbage.
func mutate(_ seed: [UInt8], _ rng: inout FuzzRNG, into b: inout [UInt8]) {
    b.removeAll(keepingCapacity: true)
    switch rng.below(10) {
    case 0:  // pure garbage
        for _ in 0..<rng.below(96) { b.append(UInt8(truncatingIfNeeded: rng.next())) }
        return
    default:
        b.append(contentsOf: seed)
    }
    for _ in 0..<(1 + rng.below(4)) {
        guard !b.isEmpty else { break }
        switch rng.below(6) {
        case 0: b[rng.below(b.count)] ^= UInt8(1 << rng.below(8))
        case 1: b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next())
        case 2: b.removeLast(rng.below(b.count))
        case 3:
            let i = rng.below(b.count)
            b.insert(contentsOf: b[i..<min(b.count, i + rng.below(16))], at: rng.below(b.count))
        case 4:
            let i = rng.below(b.count)
            b.removeSubrange(i..<min(b.count, i + 1 + rng.below(8)))
        default:
            b[rng.below(b.count)] = [0x00, 0xFF, 0x7F, 0x80, 0x2C, 0x2A, 0x24, 0x0A][rng.below(8)]
        }
    }
}

/// How many datagrams each decoder gets (at least a million by default).
let fuzzCount = Int(ProcessInfo.processInfo.environment["FLEETD_FUZZ_COUNT"] ?? "") ?? 1_000_000

@Suite struct FuzzTests {
    @Test func teltonikaNeverTrapsAndNeverAcceptsAnInvalidPacket() {
        var seeds: [[UInt8]] = []
        for codec: UInt8 in [0x08, 0x8E, 0x10] {
            var r = TeltonikaEncoder.Record(time: 1_700_000_000_000, lat: 54.7, lon: 25.3)
            r.io = [(239, 1, 1), (21, 1, 3), (66, 2, 12000), (16, 4, 5000), (78, 8, 0)]
            if codec == 0x8E { r.nx = [(300, [1, 2, 3])] }
            seeds.append(
                TeltonikaEncoder.udp(
                    avlPacketId: 1, imei: "352093081452251", codec: codec, records: [r, r]))
        }
        var rng = FuzzRNG(s: 0x7E17_0A1C_A5E5_0001)
        var b: [UInt8] = []
        b.reserveCapacity(512)
        var accepted = 0
        for i in 0..<fuzzCount {
            mutate(seeds[i % seeds.count], &rng, into: &b)
            // Lying length fields and huge counts, on purpose.
            if b.count > 24, rng.below(8) == 0 { b[24] = 0xFF }
            if b.count > 2, rng.below(8) == 0 { b[0] = 0xFF }
            guard case .success(let p) = b.withUnsafeBufferPointer({ TeltonikaDecoder.decode($0) })
            else { continue }
            accepted += 1
            // What is accepted is structurally whole.
            let ok =
                Int(b[0]) << 8 | Int(b[1]) == b.count - 2 && Int(b[b.count - 1]) == p.fixes.count
                && p.imei.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                && p.fixes.allSatisfy { abs($0.lat) <= 90 && abs($0.lon) <= 180 }
            if !ok { Issue.record("accepted an invalid packet: \(b)") }
        }
        #expect(accepted > 0)
    }

    @Test func jsonNeverTrapsAndAcceptsOnlyValidFixes() {
        let seeds = [
            #"{"device":"truck-7","time":"2024-03-01T12:00:00.250+01:00","lat":48.1,"lon":-11.5,"speed":72.5,"seq":41}"#,
            "{\"device\":\"a\",\"time\":1700000000000,\"lat\":1,\"lon\":2,\"seq\":1}\n{\"device\":\"a\",\"time\":1700000001000,\"lat\":1.5,\"lon\":2,\"extra\":[1,{\"x\":null}]}",
        ].map { Array($0.utf8) }
        var rng = FuzzRNG(s: 0x15_0A_0002)
        var b: [UInt8] = []
        var accepted = 0
        for i in 0..<fuzzCount {
            mutate(seeds[i % seeds.count], &rng, into: &b)
            let out = b.withUnsafeBufferPointer { JSONFixDecoder.decode($0) }
            for item in out.items {
                accepted += 1
                let f = item.fix
                if !(JSONFixDecoder.isValidDevice(f.device) && abs(f.lat) <= 90
                    && abs(f.lon) <= 180)
                {
                    Issue.record(
                        "accepted an invalid fix from \(String(decoding: b, as: UTF8.self))")
                }
            }
        }
        #expect(accepted > 0)
    }

    @Test func nmeaNeverTrapsAndAcceptsOnlyChecksummedSentences() {
        let seeds = [
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n",
            "$PFLID,bus-12*2F\r\n$GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A,V*12\r\n",
        ].map { Array($0.utf8) }
        var rng = FuzzRNG(s: 0x0183_0003)
        var b: [UInt8] = []
        var accepted = 0
        for i in 0..<fuzzCount {
            mutate(seeds[i % seeds.count], &rng, into: &b)
            for piece in NMEAParser.split(b) {
                guard case .success(let s) = NMEAParser.parse(piece) else { continue }
                accepted += 1
                // Accepted ⇒ the checksum holds.
                guard let star = piece.lastIndex(of: 0x2A) else {
                    Issue.record("accepted a sentence without a checksum")
                    continue
                }
                var sum: UInt8 = 0
                for x in piece[(piece.startIndex + 1)..<star] { sum ^= x }
                if UInt8(String(decoding: piece[(star + 1)...], as: UTF8.self), radix: 16) != sum {
                    Issue.record("accepted a bad checksum")
                }
                if case .rmc(let r) = s, let lat = r.lat, let lon = r.lon,
                    abs(lat) > 90 || abs(lon) > 180
                {
                    Issue.record("accepted an out-of-range position")
                }
            }
        }
        #expect(accepted > 0)
    }
}
