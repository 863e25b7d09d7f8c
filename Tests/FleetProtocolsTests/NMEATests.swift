import FleetModel
import Testing

@testable import FleetProtocols

@Suite struct NMEATests {
    func parse(_ s: String) -> Result<NMEASentence, NMEAParser.Failure> {
        NMEAParser.parse(ArraySlice(Array(s.utf8)))
    }

    @Test func classicRMCAndGGA() throws {
        guard
            case .rmc(let r) = try parse(
                "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A"
            ).get()
        else {
            Issue.record("not an RMC")
            return
        }
        #expect(r.time == 764_426_119_000)  // 1994-03-23T12:35:19Z
        #expect(abs(r.lat! - 48.1173) < 1e-9 && abs(r.lon! - 11.516666666) < 1e-8)
        #expect(abs(r.speedKmh! - 41.4848) < 1e-9 && r.course == 84.4 && r.valid)
        guard
            case .gga(let g) = try parse(
                "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"
            ).get()
        else {
            Issue.record("not a GGA")
            return
        }
        #expect(
            g.quality == 1 && g.sats == 8 && g.hdop == 0.9 && g.altM == 545.4
                && g.timeOfDay == 45_319_000)
    }

    @Test func validity() throws {
        func valid(_ s: String) throws -> Bool {
            guard case .rmc(let r) = try parse(NMEAEncoder.checksummed(s)).get() else {
                return false
            }
            return r.valid
        }
        #expect(try valid("$GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A"))
        // u-blox F9P: NMEA 4.1 navigational status `V` ("not provided") does not make it invalid.
        #expect(try valid("$GNRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A,V"))
        #expect(try !valid("$GPRMC,083559.00,V,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A"))
        #expect(try !valid("$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,N"))
    }

    @Test func rejectionsWithReasons() {
        func reason(_ s: String) -> RejectReason? {
            if case .failure(let f) = parse(s) { return f.reason }
            return nil
        }
        #expect(
            reason("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6B")
                == .badChecksum)
        #expect(reason("$GPRMC,123519,A,4807.038,N,01131.0") == .badSentence)
        #expect(reason("GPRMC,123519*00") == .badSentence)
        #expect(reason("garbage") == .badSentence)
        #expect(
            reason(
                NMEAEncoder.checksummed(
                    "$GPRMC,126019,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
                == .badNMEAField)
        #expect(
            reason(
                NMEAEncoder.checksummed(
                    "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,300294,003.1,W"))
                == .badNMEAField)
        #expect(
            reason(
                NMEAEncoder.checksummed(
                    "$GPRMC,123519,A,9107.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
                == .badNMEAField)
        #expect(
            reason(
                NMEAEncoder.checksummed(
                    "$GPRMC,123519,A,4807.038,X,01131.000,E,022.4,084.4,230394,003.1,W"))
                == .badNMEAField)
        #expect(
            reason(
                NMEAEncoder.checksummed(
                    "$GPGGA,123519,4807.038,N,01131.000,E,x,08,0.9,545.4,M,46.9,M,,"))
                == .badNMEAField)
        #expect(reason(NMEAEncoder.checksummed("$PFLID,has space")) == .badDevice)
        #expect(reason(NMEAEncoder.checksummed("$GPGSV,3,1,11,03,03,111,00")) == nil)
    }

    @Test func fusedAndTruncatedSentencesDoNotCostTheGoodOnes() {
        let good1 = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A"
        let good2 = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"
        let datagram =
            "\(NMEAEncoder.checksummed("$PFLID,bus-12"))\r\n\(good1)\(good2)\r\n$GPGGA,1235\r\nnoise\n\r\n"
        let pieces = NMEAParser.split(Array(datagram.utf8))
        let results = pieces.map(NMEAParser.parse)
        #expect(results.count == 5)
        #expect((try? results[0].get()) == .identity("bus-12"))
        if case .success(.rmc) = results[1] {} else { Issue.record("RMC lost") }
        if case .success(.gga) = results[2] {} else { Issue.record("GGA lost") }
        if case .failure(let f) = results[3] {
            #expect(f.reason == .badSentence)
        } else {
            Issue.record("truncated accepted")
        }
        if case .failure(let f) = results[4] {
            #expect(f.reason == .badSentence)
        } else {
            Issue.record("noise accepted")
        }
    }

    @Test func assemblerPairsAcrossDatagramsInEitherOrder() throws {
        let rmc = try parse("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A")
            .get()
        let gga = try parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47")
            .get()
        var a = NMEAAssembler()
        #expect(a.add(rmc, device: "d", nowMs: 0).isEmpty)
        let fixes = a.add(gga, device: "d", nowMs: 5)
        #expect(fixes.count == 1)
        #expect(
            fixes[0].sats == 8 && fixes[0].altM == 545.4 && fixes[0].extra?.hdop == 0.9
                && fixes[0].valid)
        var b = NMEAAssembler()
        #expect(b.add(gga, device: "d", nowMs: 0).isEmpty)
        #expect(b.add(rmc, device: "d", nowMs: 1).count == 1)
        // An RMC with no GGA: released by the next RMC, or by a flush.
        var c = NMEAAssembler()
        _ = c.add(rmc, device: "d", nowMs: 0)
        #expect(c.flush(device: "d").map(\.sats) == [nil])
        // Quality 0 makes the fix invalid.
        let noFix = try parse(
            NMEAEncoder.checksummed("$GPGGA,123519,4807.038,N,01131.000,E,0,00,,,M,,M,,")
        ).get()
        var d = NMEAAssembler()
        _ = d.add(rmc, device: "d", nowMs: 0)
        #expect(d.add(noFix, device: "d", nowMs: 0).map(\.valid) == [false])
    }
}
