import ArgumentParser
import FleetProtocols
import Foundation

/// `fleetbench decode`: decode rate per protocol on one core.
struct DecodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Datagrams and records decoded per second, per protocol, on one core.")

    @Option(help: "Datagrams decoded per pass (the median of 5 passes is reported).")
    var count = 300_000

    func run() {
        print("protocol / datagram\tdatagrams/s\trecords/s\tµs/record")
        func record(_ i: Int) -> TeltonikaEncoder.Record {
            var r = TeltonikaEncoder.Record(
                time: 1_700_000_000_000 + Int64(i) * 1000, lat: 48.85 + Double(i) * 1e-4, lon: 2.35)
            r.speedKmh = 50
            r.sats = 11
            r.io = [
                (239, 1, 1), (240, 1, 1), (21, 1, 4), (69, 1, 1), (1, 1, 0), (2, 1, 0), (179, 1, 0),
                (200, 1, 0),
                (66, 2, 12_600), (67, 2, 4100), (68, 2, 0), (24, 2, 50), (9, 2, 0), (181, 2, 9),
                (182, 2, 7),
                (16, 4, 123_456), (199, 4, 14), (241, 4, 24602), (78, 8, 0), (11, 8, 1234),
            ]
            return r
        }
        let t1 = TeltonikaEncoder.udp(
            avlPacketId: 1, imei: "352093081452251", codec: 0x8E, records: [record(0)])
        let t10 = TeltonikaEncoder.udp(
            avlPacketId: 1, imei: "352093081452251", codec: 0x8E, records: (0..<10).map(record))
        measure("teltonika 8E, 1 record, 20 IO", t1, records: 1) { b in
            if case .success(let p) = TeltonikaDecoder.decode(b) { return p.fixes.count }
            return 0
        }
        measure("teltonika 8E, 10 records, 20 IO", t10, records: 10) { b in
            if case .success(let p) = TeltonikaDecoder.decode(b) { return p.fixes.count }
            return 0
        }
        let rmcGGA = Array(
            ("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n"
                + "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n").utf8)
        measure("nmea RMC+GGA", rmcGGA, records: 1) { b in
            var a = NMEAAssembler()
            var n = 0
            for piece in NMEAParser.split(Array(b)) {
                if case .success(let s) = NMEAParser.parse(piece) {
                    n += a.add(s, device: "d", nowMs: 0).count
                }
            }
            return n
        }
        let json = Array(
            #"{"device":"truck-7","time":1700000000000,"lat":48.8566,"lon":2.3522,"speed":72.5,"course":90,"seq":41}"#
                .utf8)
        measure("json, 1 fix", json, records: 1) { b in JSONFixDecoder.decode(b).items.count }
    }

    func measure(
        _ name: String, _ bytes: [UInt8], records: Int,
        _ decode: (UnsafeBufferPointer<UInt8>) -> Int
    ) {
        var times: [Double] = []
        var total = 0
        bytes.withUnsafeBufferPointer { b in
            for _ in 0..<5 {
                times.append(Measure.seconds { for _ in 0..<count { total &+= decode(b) } })
            }
        }
        precondition(
            total == 5 * count * records,
            "\(name): decoded \(total), expected \(5 * count * records)")
        let rate = Double(count) / Measure.median(times)
        print(
            String(
                format: "%@\t%.0f\t%.0f\t%.2f", name, rate, rate * Double(records),
                1e6 / (rate * Double(records))))
    }
}
