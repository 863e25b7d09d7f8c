import FleetModel
import FleetProtocols
import Testing

@Suite struct OsmAndDecoderTests {
    let now: Int64 = 1_700_000_000_000

    func query(_ q: String) -> Result<Fix, OsmAndDecoder.Rejection> {
        OsmAndDecoder.decode(pairs: FormEncoding.pairs(q), receivedMs: now)
    }

    @Test func traccarClientQueryIsReadInItsUnits() throws {
        let fix = try query(
            "id=phone-1&timestamp=1699999990&lat=48.137&lon=11.575&speed=10&bearing=90.5&altitude=520&accuracy=12&batt=87.5&charge=true&alarm=sos&mock=false"
        ).get()
        #expect(fix.device == "phone-1")
        #expect(fix.time == 1_699_999_990_000)
        #expect(fix.lat == 48.137 && fix.lon == 11.575)
        #expect(abs(fix.speedKmh! - 18.52) < 1e-9)  // knots
        #expect(fix.course == 90.5 && fix.altM == 520 && fix.accuracyM == 12)
        #expect(fix.extra?.batteryPercent == 87.5 && fix.extra?.charging == true)
        #expect(fix.extra?.attributes == #"{"alarm":"sos","mock":false}"#)
        #expect(fix.extra?.alarm == "sos")
        #expect(fix.valid)
    }

    /// A body of 150 000 empty attributes (about 1 MiB) once cost a scan of
    /// the kept ones per key: refused now at the 65th, read once.
    @Test func attributesAreCappedInCountAndSize() throws {
        let base = "id=phone-1&lat=48.1&lon=11.5"
        let sixtyFour = (0..<64).map { "a\($0)=1" }.joined(separator: "&")
        #expect(try query(base + "&" + sixtyFour).get().extra?.attributes?.isEmpty == false)
        guard case .failure(let r) = query(base + "&" + sixtyFour + "&a64=1") else {
            Issue.record("65 attributes accepted")
            return
        }
        #expect(r.reason == .oversize && r.detail.contains("64"))
        let huge = (0..<150_000).map { "a\($0)=" }.joined(separator: "&")
        guard case .failure(let h) = query(base + "&" + huge) else {
            Issue.record("150 000 attributes accepted")
            return
        }
        #expect(h.reason == .oversize)
        // Repeated keys count once (the first is kept).
        let repeated = Array(repeating: "x=1", count: 10_000).joined(separator: "&")
        #expect(try query(base + "&" + repeated).get().extra?.attributes == #"{"x":1}"#)
        // A value too large to keep.
        let long = String(repeating: "v", count: 9000)
        guard case .failure(let l) = query(base + "&note=" + long) else {
            Issue.record("a 9 000-byte attribute accepted")
            return
        }
        #expect(l.reason == .oversize && l.detail.contains("8192"))
    }

    @Test func timestampsInEveryFormTheAppsSend() {
        #expect(OsmAndDecoder.parseTime("1700000000") == 1_700_000_000_000)
        #expect(OsmAndDecoder.parseTime("1700000000123") == 1_700_000_000_123)
        #expect(OsmAndDecoder.parseTime("1700000000.5") == 1_700_000_000_500)
        #expect(OsmAndDecoder.parseTime("2023-11-14T22:13:20Z") == 1_700_000_000_000)
        #expect(OsmAndDecoder.parseTime("2023-11-14T23:13:20+01:00") == 1_700_000_000_000)
        #expect(OsmAndDecoder.parseTime("2023-11-14 22:13:20") == 1_700_000_000_000)
        #expect(OsmAndDecoder.parseTime("yesterday") == nil)
    }

    @Test func locationDeviceidHeadingAndAbsentTime() throws {
        let fix = try query("deviceid=p2&location=-33.5%2C151.25&heading=270&valid=0&accuracy=0")
            .get()
        #expect(fix.device == "p2" && fix.lat == -33.5 && fix.lon == 151.25)
        #expect(fix.course == 270 && fix.time == now && !fix.valid && fix.accuracyM == nil)
    }

    @Test func repeatedCellAndWifiAreKeptAsLists() throws {
        let fix = try query("id=p&lat=1&lon=2&cell=262,1,100,200&cell=262,1,100,201&wifi=aa-bb,-60")
            .get()
        #expect(
            fix.extra?.attributes
                == #"{"cell":["262,1,100,200","262,1,100,201"],"wifi":["aa-bb,-60"]}"#)
    }

    @Test func badRequestsSayWhyWithTheUsualReasons() {
        func reason(_ q: String) -> RejectReason? {
            if case .failure(let r) = query(q) { return r.reason }
            return nil
        }
        #expect(reason("lat=1&lon=2") == .missingField)
        #expect(reason("id=p&lat=1") == .missingField)
        #expect(reason("id=bad%20id&lat=1&lon=2") == .badDevice)
        #expect(reason("id=p&lat=north&lon=2") == .badField)
        #expect(reason("id=p&lat=91&lon=2") == .latOutOfRange)
        #expect(reason("id=p&lat=1&lon=181") == .lonOutOfRange)
        #expect(reason("id=p&lat=1&lon=2&timestamp=soon") == .badTime)
        #expect(reason("id=p&lat=1&lon=2&charge=maybe") == .badField)
    }

    @Test func jsonStyleIsReadInItsUnits() throws {
        let body = #"""
            {"location":{"timestamp":"2023-11-14T22:13:20.250Z","coords":{"latitude":48.1,"longitude":11.5,
             "accuracy":8,"speed":10,"heading":-1,"altitude":500},"is_moving":true,"odometer":1234.5,
             "event":"motionchange","battery":{"level":0.42,"is_charging":false},"activity":{"type":"in_vehicle"}},
             "device_id":"phone-9","_":"&id=phone-9&"}
            """#
        let fix = try OsmAndDecoder.decode(json: Array(body.utf8), receivedMs: now).get()
        #expect(fix.device == "phone-9" && fix.time == 1_700_000_000_250)
        #expect(fix.speedKmh == 36 && fix.course == nil && fix.accuracyM == 8 && fix.altM == 500)
        #expect(fix.extra?.batteryPercent == 42 && fix.extra?.charging == false)
        #expect(
            fix.extra?.attributes
                == #"{"is_moving":true,"odometer":1234.5,"event":"motionchange","activity":{"type":"in_vehicle"}}"#
        )
    }

    @Test func badJSONBodiesSayWhy() {
        func reason(_ s: String) -> RejectReason? {
            if case .failure(let r) = OsmAndDecoder.decode(json: Array(s.utf8), receivedMs: now) {
                return r.reason
            }
            return nil
        }
        #expect(reason("{") == .jsonSyntax)
        #expect(reason("[]") == .badField)
        #expect(reason(#"{"location":{"coords":{"latitude":1,"longitude":2}}}"#) == .missingField)
        #expect(reason(#"{"device_id":"p","location":[]}"#) == .badField)
        #expect(
            reason(#"{"device_id":"p","location":{"coords":{"latitude":"1","longitude":2}}}"#)
                == .badField)
        #expect(
            reason(#"{"device_id":"p","location":{"coords":{"latitude":100,"longitude":2}}}"#)
                == .latOutOfRange)
    }

    @Test func formEncodingDecodesPlusAndEscapes() {
        let p = FormEncoding.pairs("a=1+2&b=%41%zz&c&=x")
        #expect(p.map(\.name) == ["a", "b", "c", ""])
        #expect(p.map(\.value) == ["1 2", "A%zz", "", "x"])
    }
}
