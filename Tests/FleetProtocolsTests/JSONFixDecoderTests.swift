import FleetModel
import Testing

@testable import FleetProtocols

@Suite struct JSONFixDecoderTests {
    func decode(_ s: String) -> JSONFixDecoder.Output { JSONFixDecoder.decode(Array(s.utf8)) }

    @Test func decodesEveryField() {
        let out = decode(
            #"{"device":"truck-7","time":"2024-03-01T12:00:00.250+01:00","lat":48.1,"lon":-11.5,"speed":72.5,"course":90,"alt":-4,"accuracy":3.5,"sats":9,"ignition":true,"seq":41,"extra":{"x":[1,2]}}"#
        )
        #expect(out.rejections == [])
        #expect(out.items.count == 1)
        let f = out.items[0].fix
        #expect(f.device == "truck-7")
        #expect(f.time == 1_709_290_800_250)
        #expect(f.lat == 48.1 && f.lon == -11.5)
        #expect(f.speedKmh == 72.5 && f.course == 90 && f.altM == -4 && f.accuracyM == 3.5)
        #expect(f.sats == 9 && f.ignition == true)
        #expect(out.items[0].seq == 41)
    }

    @Test func jsonLinesKeepGoodLinesBesideBadOnes() {
        let out = decode(
            """
            {"device":"a","time":1700000000000,"lat":1,"lon":2,"seq":1}
            {"device":"a","time":1700000001000,"lat":1,"lon":2,"seq":2
            \r
            {"device":"a","time":1700000002000,"lat":91,"lon":2,"seq":3}\r
            {"device":"a","time":1700000003000,"lat":1,"lon":2,"seq":4}
            """)
        #expect(out.items.map(\.seq) == [1, 4])
        #expect(out.items.map(\.line) == [0, 4])
        #expect(out.rejections.map(\.reason) == [.jsonSyntax, .latOutOfRange])
        #expect(out.rejections.map(\.item) == [1, 3])
        #expect(out.rejections[1].seq == 3)
    }

    @Test(arguments: [
        (#"{"time":1,"lat":1,"lon":1}"#, RejectReason.missingField),
        (#"{"device":"a","lat":1,"lon":1}"#, .missingField),
        (#"{"device":"a","time":1,"lon":1}"#, .missingField),
        (#"{"device":"a b","time":1,"lat":1,"lon":1}"#, .badDevice),
        (#"{"device":"","time":1,"lat":1,"lon":1}"#, .badDevice),
        (#"{"device":"a","time":"yesterday","lat":1,"lon":1}"#, .badTime),
        (#"{"device":"a","time":"2024-02-30T00:00:00Z","lat":1,"lon":1}"#, .badTime),
        (#"{"device":"a","time":"2024-01-01T00:00:00","lat":1,"lon":1}"#, .badTime),
        (#"{"device":"a","time":1.5,"lat":1,"lon":1}"#, .badTime),
        (#"{"device":"a","time":1,"lat":"1","lon":1}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lon":181}"#, .lonOutOfRange),
        (#"{"device":"a","time":1,"lat":1,"lon":1,"speed":-1}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lon":1,"course":361}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lon":1,"sats":2.5}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lon":1,"ignition":1}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lat":2,"lon":1}"#, .badField),
        (#"{"device":"a","time":1,"lat":1,"lon":1} {"device":"b"}"#, .jsonSyntax),
        (#"[{"device":"a","time":1,"lat":1,"lon":1}]"#, .jsonSyntax),
        ("\u{FF}\u{00}garbage", .jsonSyntax),
    ])
    func rejectsWithAReason(_ input: (String, RejectReason)) {
        let out = decode(input.0)
        #expect(out.items.isEmpty)
        #expect(out.rejections.map(\.reason) == [input.1])
    }

    @Test func nullOptionalFieldsAreAbsent() {
        let out = decode(#"{"device":"a","time":1,"lat":1,"lon":1,"speed":null,"seq":null}"#)
        #expect(out.items.count == 1)
        #expect(out.items[0].fix.speedKmh == nil)
        #expect(out.items[0].seq == nil)
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 1
        let base = Array(
            #"{"device":"a","time":"2024-01-01T00:00:00Z","lat":1.5,"lon":2,"seq":7}"#.utf8)
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let i = Int(state >> 33) % bytes.count
                bytes[i] = UInt8(truncatingIfNeeded: state >> 13)
            }
            let out = JSONFixDecoder.decode(bytes)
            #expect(out.items.count + out.rejections.count >= 1)
        }
    }
}
