import FleetProtocols
import Foundation

/// Plays a simulated fleet's datagrams to fleetd over UDP, as its devices
/// would: each device sends its packets in order, one in flight, resent
/// until acknowledged (JSON per `seq`, Teltonika per packet id); NMEA is
/// not acknowledged, so an NMEA device waits `nmeaSpacingMs` between
/// datagrams. An OsmAnd device (a phone app) sends each fix as one HTTP
/// request on one kept-alive connection, waits for the answer (200 means
/// committed) and sends it again after `resendMs` until then. A packet
/// flagged `duplicate` is delivered twice; one flagged `reorder` goes after
/// the device's next packet.
public final class FleetSender {
    public struct Targets: Sendable {
        public var json: (host: String, port: Int)?
        public var teltonika: (host: String, port: Int)?
        public var nmea: (host: String, port: Int)?
        /// fleetd's OsmAnd HTTP address (TCP).
        public var osmand: (host: String, port: Int)?

        public init(
            json: (host: String, port: Int)?, teltonika: (host: String, port: Int)?,
            nmea: (host: String, port: Int)?, osmand: (host: String, port: Int)? = nil
        ) {
            self.json = json
            self.teltonika = teltonika
            self.nmea = nmea
            self.osmand = osmand
        }
    }

    /// What was sent and what came back.
    public struct Report: Sendable, Equatable {
        public var packets = 0
        public var fixes = 0
        public var resent = 0
        public var acked = 0
        public var rejected: [String: Int] = [:]
        public var unacked = 0
        public var elapsedS = 0.0
    }

    private let devices: [SimDevice]
    private let startMs: Int64
    private let speedup: Double
    private let resendMs: Double
    private let maxAttempts: Int
    private let nmeaSpacingMs: Double
    /// The UDP sockets (one per protocol, times `sources`) and each device's.
    private var sockets: [(proto: String, socket: UDPClient)] = []
    private var socketOf: [Int] = []
    private var http: HTTPConnection?

    /// `speedup`: fix time runs this many times faster than the wall clock
    /// from `startMs` (0: as fast as acknowledgements allow). With `sources`
    /// above 1, the devices send from that many loopback addresses
    /// (127.0.0.2, 127.0.0.3, …; device k from the (k mod sources)th), as
    /// trackers behind different addresses do: for a balancer that hashes
    /// on the source address. Loopback targets only.
    public init(
        devices: [SimDevice], targets: Targets, startMs: Int64, speedup: Double,
        resendMs: Int = 1000, maxAttempts: Int = 30, nmeaSpacingMs: Double = 5, sources: Int = 1
    ) throws(UDPClientError) {
        self.devices = devices
        self.startMs = startMs
        self.speedup = speedup
        self.resendMs = Double(resendMs)
        self.maxAttempts = maxAttempts
        self.nmeaSpacingMs = nmeaSpacingMs
        var index: [String: Int] = [:]
        for proto in Set(devices.map(\.proto)).sorted() {
            if proto == "osmand" {
                guard let t = targets.osmand else { throw UDPClientError("no target for osmand") }
                http = HTTPConnection(host: t.host, port: t.port)
                continue
            }
            let t: (host: String, port: Int)? =
                switch proto {
                case "json": targets.json
                case "teltonika": targets.teltonika
                default: targets.nmea
                }
            guard let t else { throw UDPClientError("no target for \(proto)") }
            for k in 0..<max(sources, 1) {
                index["\(proto)/\(k)"] = sockets.count
                sockets.append(
                    (
                        proto,
                        try UDPClient(
                            host: t.host, port: t.port,
                            source: sources > 1 ? "127.0.0.\(2 + k)" : nil)
                    ))
            }
        }
        socketOf = devices.indices.map { d in
            index["\(devices[d].proto)/\(d % max(sources, 1))"] ?? 0
        }
    }

    /// A packet in flight: its device and index, the keys its answer
    /// carries, when it was last sent and how often.
    private struct Flight {
        var device: Int
        var packet: Int
        var keys: [Int64]
        var bytes: [UInt8]
        var sentAt: Double
        var attempts: Int
    }

    public func run() -> Report {
        var report = Report()
        let clock = Date()
        func now() -> Double { Date().timeIntervalSince(clock) * 1000 }
        var next = [Int](repeating: 0, count: devices.count)
        var flying = [[Int64]](repeating: [], count: devices.count)  // keys per device
        var flights: [Int64: Flight] = [:]  // by first key
        var keyOwner: [Int64: Int64] = [:]  // key → flight's first key
        var answered: [Int64: Set<Int64>] = [:]
        var quietUntil = [Double](repeating: 0, count: devices.count)
        var seq: Int64 = 0
        var packetKey: Int64 = 0
        func due(_ p: SimPacket) -> Double {
            speedup > 0 ? Double(p.dueMs - startMs) / speedup : 0
        }
        func encode(_ d: Int, _ p: SimPacket) -> (keys: [Int64], bytes: [UInt8]) {
            let dev = devices[d]
            switch dev.proto {
            case "json":
                let first = seq + 1
                seq += Int64(p.fixes.count)
                return (
                    Array(first...seq),
                    PacketEncoder.json(device: dev.device, fixes: p.fixes, firstSeq: first)
                )
            case "teltonika":
                packetKey = (packetKey + 1) & 0xFF_FFFF
                let bytes = PacketEncoder.teltonika(
                    imei: dev.device, fixes: p.fixes, packetId: UInt16(packetKey & 0xFFFF),
                    avlPacketId: UInt8(packetKey >> 16))
                return ([-(packetKey + 1)], bytes)  // negative: not a JSON seq
            default:
                return ([], PacketEncoder.nmea(device: dev.device, fixes: p.fixes))
            }
        }
        func send(_ d: Int, _ i: Int, at t: Double) {
            let p = devices[d].packets[i]
            if devices[d].proto == "osmand" {
                post(d, p)
                return
            }
            let (keys, bytes) = encode(d, p)
            let socket = sockets[socketOf[d]].socket
            socket.send(bytes)
            if p.duplicate { socket.send(bytes) }
            report.packets += 1
            report.fixes += p.fixes.count
            if keys.isEmpty {
                quietUntil[d] = t + nmeaSpacingMs
                return
            }
            flights[keys[0]] = Flight(
                device: d, packet: i, keys: keys, bytes: bytes, sentAt: t, attempts: 1)
            for k in keys { keyOwner[k] = keys[0] }
            flying[d].append(keys[0])
        }
        // One request per fix, each until answered (a 4xx: refused, dropped).
        func post(_ d: Int, _ p: SimPacket) {
            report.packets += 1
            report.fixes += p.fixes.count
            for f in p.fixes {
                let target = PacketEncoder.osmand(device: devices[d].device, fix: f)
                for copy in 0..<(p.duplicate ? 2 : 1) {
                    var attempts = 0
                    while true {
                        attempts += 1
                        let status = (try? http?.exchange("GET", target, timeoutMs: 35_000))?.status
                        if status == 200 {
                            if copy == 0 { report.acked += 1 }
                            break
                        }
                        if let status, (400..<500).contains(status) {
                            report.rejected["http_\(status)", default: 0] += 1
                            break
                        }
                        if attempts >= maxAttempts {
                            report.unacked += 1
                            break
                        }
                        report.resent += 1
                        usleep(UInt32(resendMs * 1000))
                    }
                }
            }
        }
        func land(_ first: Int64) {
            guard let f = flights.removeValue(forKey: first) else { return }
            for k in f.keys { keyOwner[k] = nil }
            answered[first] = nil
            flying[f.device].removeAll { $0 == first }
        }
        var active = Array(devices.indices)
        while !active.isEmpty {
            let t = now()
            var soonest = 20.0
            active.removeAll { d in
                next[d] >= devices[d].packets.count && flying[d].isEmpty && quietUntil[d] <= t
            }
            for d in active {
                if !flying[d].isEmpty {
                    for first in flying[d] {
                        guard var f = flights[first], t - f.sentAt >= resendMs else { continue }
                        if f.attempts >= maxAttempts {
                            report.unacked += devices[d].packets[f.packet].fixes.count
                            land(first)
                            continue
                        }
                        f.attempts += 1
                        f.sentAt = t
                        sockets[socketOf[d]].socket.send(f.bytes)
                        report.resent += 1
                        flights[first] = f
                    }
                    continue
                }
                guard quietUntil[d] <= t else {
                    soonest = min(soonest, quietUntil[d] - t)
                    continue
                }
                let i = next[d]
                guard i < devices[d].packets.count else { continue }
                let p = devices[d].packets[i]
                let at = due(p)
                guard at <= t else {
                    soonest = min(soonest, at - t)
                    continue
                }
                if p.reorder, i + 1 < devices[d].packets.count,
                    due(devices[d].packets[i + 1]) <= t
                {
                    send(d, i + 1, at: t)
                    send(d, i, at: t)
                    next[d] = i + 2
                } else {
                    send(d, i, at: t)
                    next[d] = i + 1
                }
            }
            // Replies.
            var got = false
            for (proto, socket) in sockets where proto != "nmea" {
                while let bytes = socket.receive(timeoutMs: 0) {
                    got = true
                    if proto == "json" {
                        guard let r = JSONReply.parse(bytes) else { continue }
                        var touched = Set<Int64>()
                        for s in r.acked {
                            guard let first = keyOwner[s] else { continue }
                            answered[first, default: []].insert(s)
                            touched.insert(first)
                            report.acked += 1
                        }
                        for (s, reason) in r.rejected {
                            guard let first = keyOwner[s] else { continue }
                            answered[first, default: []].insert(s)
                            touched.insert(first)
                            report.rejected[reason.rawValue, default: 0] += 1
                        }
                        for first in touched {
                            if let f = flights[first], answered[first]?.count == f.keys.count {
                                land(first)
                            }
                        }
                    } else if bytes.count == 7 {
                        let key = Int64(bytes[5]) << 16 | Int64(bytes[2]) << 8 | Int64(bytes[3])
                        let first = -(key + 1)
                        if flights[first] != nil {
                            report.acked += Int(bytes[6])  // the records the packet held
                            land(first)
                        }
                    }
                }
            }
            if !got {
                let wait = max(0, min(soonest, 2))
                if wait > 0 { usleep(UInt32(wait * 1000)) }
            }
        }
        report.elapsedS = Date().timeIntervalSince(clock)
        return report
    }
}
