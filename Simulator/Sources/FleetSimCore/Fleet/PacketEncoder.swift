import FleetModel
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

/// What a simulated device of some protocol sends for one packet.
public enum SimWire: Sendable, Equatable {
    /// One datagram, and the keys its acknowledgement names: JSON's `seq`s,
    /// or for Teltonika one negative key for the packet (−(key + 1), so it
    /// never equals a `seq`); none for NMEA, which is never acknowledged.
    case datagram(keys: [Int64], bytes: [UInt8])
    /// HTTP request targets (path and query), one per fix (OsmAnd).
    case requests([String])
    /// Bytes written on the device's TCP connection after its `opening`
    /// (the handshake or login its connection starts with), and the keys
    /// the answers name, in order (one per frame or line).
    case stream(opening: [UInt8], keys: [Int64], bytes: [UInt8])
}

/// An answer on a device's TCP connection.
public enum StreamAnswer: Sendable, Equatable {
    /// The answer to the connection's opening (handshake, login).
    case opening(accepted: Bool)
    /// The answer to the next frame or line of fixes.
    case answer
    /// Anything else (an echoed heartbeat).
    case other
}

/// Encodes simulated packets in every registered protocol, numbering them
/// as their devices would (JSON's `seq` per fix, Teltonika's packet ids),
/// for the fleet sender and the offline accuracy benchmark alike. Its
/// switches are exhaustive: a protocol added to `TrackerProtocol` does not
/// compile until it has an encoder here.
public struct SimEncoder: Sendable {
    /// The last JSON `seq` given, and the last Teltonika packet key (24 bits:
    /// packet id and AVL packet id).
    private var seq: Int64 = 0
    private var packetKey: Int64 = 0

    public init() {}

    /// The device id a simulated vehicle `k` of `proto` reports: an IMEI
    /// for the protocols that identify by one, else `sim-0000k`.
    public static func deviceID(_ proto: TrackerProtocol, vehicle k: Int) -> String {
        switch proto {
        case .teltonika: "3520000000" + String(format: "%05d", k % 100_000)
        case .teltonikaTCP: "3521000000" + String(format: "%05d", k % 100_000)
        case .gt06: "3530000000" + String(format: "%05d", k % 100_000)
        case .h02: "41000" + String(format: "%05d", k % 100_000)
        case .json, .nmea, .osmand: "sim-" + String(format: "%05d", k)
        }
    }

    /// Packet `fixes` of `device` in `proto`.
    public mutating func encode(_ proto: TrackerProtocol, device: String, fixes: [SimFix])
        -> SimWire
    {
        switch proto {
        case .json:
            let first = seq + 1
            seq += Int64(fixes.count)
            return .datagram(
                keys: Array(first...seq),
                bytes: PacketEncoder.json(device: device, fixes: fixes, firstSeq: first))
        case .teltonika:
            packetKey = (packetKey + 1) & 0xFF_FFFF
            let bytes = PacketEncoder.teltonika(
                imei: device, fixes: fixes, packetId: UInt16(packetKey & 0xFFFF),
                avlPacketId: UInt8(packetKey >> 16))
            return .datagram(keys: [-(packetKey + 1)], bytes: bytes)
        case .nmea:
            return .datagram(keys: [], bytes: PacketEncoder.nmea(device: device, fixes: fixes))
        case .osmand:
            return .requests(fixes.map { PacketEncoder.osmand(device: device, fix: $0) })
        case .teltonikaTCP:
            let records = fixes.map { f in
                var r = TeltonikaEncoder.Record(time: f.time, lat: f.lat, lon: f.lon)
                r.speedKmh = UInt16(max(0, min(f.speedKmh, 65_535)).rounded())
                r.angle = UInt16(max(0, min(f.courseDeg, 359)).rounded())
                r.io = [(239, 1, f.ignition ? 1 : 0)]
                return r
            }
            seq += 1
            return .stream(
                opening: Self.opening(.teltonikaTCP, device: device), keys: [seq],
                bytes: TeltonikaEncoder.tcp(records: records))
        case .gt06:
            var bytes: [UInt8] = []
            var keys: [Int64] = []
            for f in fixes {
                seq += 1
                keys.append(seq)
                bytes += GT06Encoder.location(
                    timeMs: f.time, lat: f.lat, lon: f.lon, speedKmh: Int(f.speedKmh.rounded()),
                    course: Int(f.courseDeg.rounded()), acc: f.ignition,
                    serial: UInt16(truncatingIfNeeded: seq))
            }
            return .stream(
                opening: Self.opening(.gt06, device: device), keys: keys, bytes: bytes)
        case .h02:
            var bytes: [UInt8] = []
            var keys: [Int64] = []
            for f in fixes {
                seq += 1
                keys.append(seq)
                bytes += H02Encoder.v1(
                    id: device, timeMs: f.time, lat: f.lat, lon: f.lon, speedKmh: f.speedKmh,
                    course: f.courseDeg, ignition: f.ignition)
            }
            return .stream(opening: [], keys: keys, bytes: bytes)
        }
    }

    /// The bytes a device of `proto` opens its TCP connection with (its
    /// handshake or login; none for H02, whose lines name the device).
    public static func opening(_ proto: TrackerProtocol, device: String) -> [UInt8] {
        switch proto {
        case .teltonikaTCP: TeltonikaEncoder.handshake(imei: device)
        case .gt06: GT06Encoder.login(imei: device, serial: 0)
        case .json, .teltonika, .nmea, .osmand, .h02: []
        }
    }

    /// What a TCP door's answer at the start of `bytes` is, and how many
    /// bytes it takes; nil when no whole answer is there yet (or `proto`
    /// is not over TCP). `opened`: the connection's opening was answered.
    public static func streamAnswer(_ proto: TrackerProtocol, _ b: [UInt8], opened: Bool)
        -> (consumed: Int, kind: StreamAnswer)?
    {
        switch proto {
        case .json, .teltonika, .nmea, .osmand:
            return nil
        case .teltonikaTCP:
            if !opened { return b.isEmpty ? nil : (1, .opening(accepted: b[0] == 1)) }
            return b.count >= 4 ? (4, .answer) : nil
        case .gt06:
            // `78 78 05 <protocol> <serial> <crc> 0D 0A`
            guard b.count >= 10 else { return nil }
            return (10, b[3] == 0x01 ? .opening(accepted: true) : .answer)
        case .h02:
            guard let end = b.firstIndex(of: UInt8(ascii: "#")) else { return nil }
            let line = String(decoding: b[...end], as: UTF8.self)
            return (end + 1, line.contains(",V4,V1,") ? .answer : .other)
        }
    }

    /// The packet keys a UDP reply of `proto` acknowledges, the refusals
    /// it names (JSON's `rejected`), and how many fixes each acknowledged
    /// key stands for (nil: one; Teltonika names its packet's count); nil
    /// when `bytes` is no reply of that protocol.
    public static func acknowledged(_ proto: TrackerProtocol, reply bytes: [UInt8])
        -> (acked: [Int64], rejected: [(key: Int64, reason: RejectReason)], fixes: Int?)?
    {
        switch proto {
        case .json:
            guard let r = JSONReply.parse(bytes) else { return nil }
            return (r.acked, r.rejected.map { ($0.seq, $0.reason) }, nil)
        case .teltonika:
            guard bytes.count == 7 else { return nil }
            let key = Int64(bytes[5]) << 16 | Int64(bytes[2]) << 8 | Int64(bytes[3])
            return ([-(key + 1)], [], Int(bytes[6]))
        case .nmea, .osmand, .teltonikaTCP, .gt06, .h02:
            // NMEA answers nothing; OsmAnd answers by HTTP status; the TCP
            // protocols answer in order on their connection (`StreamAnswer`).
            return nil
        }
    }
}
