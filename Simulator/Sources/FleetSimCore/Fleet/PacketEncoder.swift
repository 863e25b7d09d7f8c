import FleetProtocols
import Foundation

/// A simulated device's datagram in its protocol's wire format
/// (`../shared/protocols.md`).
public enum PacketEncoder {
    /// JSON lines, the k-th carrying `seq: firstSeq + k`; speed, course,
    /// accuracy and ignition as the JSON format names them.
    public static func json(device: String, fixes: [SimFix], firstSeq: Int64) -> [UInt8] {
        var out = ""
        for (k, f) in fixes.enumerated() {
            if k > 0 { out += "\n" }
            out += "{\"device\":\"\(device)\",\"time\":\(f.time),\"lat\":\(f.lat),\"lon\":\(f.lon)"
            out += ",\"speed\":\((f.speedKmh * 10).rounded() / 10)"
            out += ",\"course\":\(f.courseDeg.rounded())"
            out += ",\"accuracy\":\(f.accuracyM),\"ignition\":\(f.ignition)"
            out += ",\"seq\":\(firstSeq + Int64(k))}"
        }
        return Array(out.utf8)
    }

    /// One OsmAnd request target (query style, `../shared/protocols.md`
    /// §3) for one fix, as a phone app sends it: time in milliseconds,
    /// speed in knots, bearing, accuracy (the 68 % radius).
    public static func osmand(device: String, fix f: SimFix) -> String {
        "/?id=\(device)&timestamp=\(f.time)&lat=\(f.lat)&lon=\(f.lon)"
            + "&speed=\((f.speedKmh / 1.852 * 100).rounded() / 100)&bearing=\(f.courseDeg.rounded())"
            + "&accuracy=\(f.accuracyM)"
    }

    /// A Teltonika codec 8 UDP packet: speed, angle, ignition (IO 239) and
    /// HDOP (IO 182, tenths) = accuracy / `hdopAccuracyM`.
    public static func teltonika(
        imei: String, fixes: [SimFix], packetId: UInt16, avlPacketId: UInt8,
        hdopAccuracyM: Double = 5
    ) -> [UInt8] {
        let records = fixes.map { f in
            var r = TeltonikaEncoder.Record(time: f.time, lat: f.lat, lon: f.lon)
            r.speedKmh = UInt16(clamping: Int(f.speedKmh.rounded()))
            r.angle = UInt16(clamping: Int(f.courseDeg.rounded()) % 360)
            let hdop = UInt64(min(2550, max(1, (f.accuracyM / hdopAccuracyM * 10).rounded())))
            r.io = [(239, 1, f.ignition ? 1 : 0), (182, 2, hdop)]
            return r
        }
        return TeltonikaEncoder.udp(
            packetId: packetId, avlPacketId: avlPacketId, imei: imei, records: records)
    }

    /// NMEA 0183: `$PFLID,device`, then an RMC and a GGA per fix, HDOP =
    /// accuracy / `hdopAccuracyM`.
    public static func nmea(device: String, fixes: [SimFix], hdopAccuracyM: Double = 5) -> [UInt8] {
        var lines = [NMEAEncoder.checksummed("$PFLID,\(device)")]
        for f in fixes {
            let c = NMEAEncoder.clock(ms: f.time)
            let at = "\(NMEAEncoder.latitude(f.lat)),\(NMEAEncoder.longitude(f.lon))"
            let knots = String(format: "%.1f", f.speedKmh / 1.852)
            let course = String(format: "%.1f", f.courseDeg)
            let hdop = String(format: "%.1f", max(0.1, f.accuracyM / hdopAccuracyM))
            lines.append(
                NMEAEncoder.checksummed("$GPRMC,\(c.time),A,\(at),\(knots),\(course),\(c.date),,,A")
            )
            lines.append(
                NMEAEncoder.checksummed("$GPGGA,\(c.time),\(at),1,09,\(hdop),35.0,M,47.0,M,,"))
        }
        return Array(lines.map { $0 + "\r\n" }.joined().utf8)
    }
}
