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
/// the device's next packet. A device of a TCP protocol keeps one
/// connection: it opens it with its handshake or login, writes each packet's
/// frames and waits for their answers (the door answers in order); a
/// packet unanswered after `resendMs`, or a connection the server closed,
/// is sent again on a new connection, as trackers do.
public final class FleetSender {
    /// fleetd's address for each protocol (UDP for those over UDP, TCP for
    /// those over HTTP), by protocol.
    public typealias Targets = [TrackerProtocol: (host: String, port: Int)]

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
    private var sockets: [(proto: TrackerProtocol, socket: UDPClient)] = []
    private var socketOf: [Int] = []
    private var http: HTTPConnection?
    /// TCP targets by protocol, and each TCP device's connection, whether
    /// its opening was answered, and the keys its connection owes answers for.
    private var streamTargets: [TrackerProtocol: (host: String, port: Int)] = [:]
    private var streams: [Int: StreamClient] = [:]
    private var opened: [Int: Bool] = [:]
    private var owed: [Int: [Int64]] = [:]
    /// Fixes each TCP key stands for (a Teltonika frame holds its packet's).
    private var keyFixes: [Int64: Int] = [:]

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
        for proto in TrackerProtocol.allCases where devices.contains(where: { $0.proto == proto }) {
            guard let t = targets[proto] else { throw UDPClientError("no target for \(proto)") }
            switch proto.transport {
            case .http:
                http = HTTPConnection(host: t.host, port: t.port)
                continue
            case .udp:
                break
            case .tcp:
                streamTargets[proto] = t
                continue
            }
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
        var encoder = SimEncoder()
        func due(_ p: SimPacket) -> Double {
            speedup > 0 ? Double(p.dueMs - startMs) / speedup : 0
        }
        func send(_ d: Int, _ i: Int, at t: Double) {
            let p = devices[d].packets[i]
            let keys: [Int64]
            let bytes: [UInt8]
            switch encoder.encode(devices[d].proto, device: devices[d].device, fixes: p.fixes) {
            case .requests(let targets):
                post(d, p, targets)
                return
            case .datagram(let k, let b):
                (keys, bytes) = (k, b)
            case .stream(let opening, let k, let b):
                report.packets += 1
                report.fixes += p.fixes.count
                for key in k { keyFixes[key] = p.fixes.count / max(k.count, 1) }
                let bytes = b + (p.duplicate ? b : [])
                open(d, opening: opening, then: bytes, keys: k + (p.duplicate ? k : []))
                flights[k[0]] = Flight(
                    device: d, packet: i, keys: k, bytes: opening + b, sentAt: t, attempts: 1)
                for key in k { keyOwner[key] = k[0] }
                flying[d].append(k[0])
                return
            }
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
        func post(_ d: Int, _ p: SimPacket, _ targets: [String]) {
            report.packets += 1
            report.fixes += p.fixes.count
            for target in targets {
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
        /// Writes `bytes` on device `d`'s connection, (re)connecting and
        /// writing `opening` first when it is not connected.
        func open(_ d: Int, opening: [UInt8], then bytes: [UInt8], keys: [Int64]) {
            let proto = devices[d].proto
            guard let target = streamTargets[proto] else { return }
            let client = streams[d] ?? StreamClient(host: target.host, port: target.port)
            streams[d] = client
            if !client.isConnected {
                do {
                    try client.connect()
                } catch {
                    return  // resent after resendMs
                }
                opened[d] = opening.isEmpty
                owed[d] = []
                client.send(opening)
            }
            owed[d, default: []] += keys
            if !bytes.isEmpty { client.send(bytes) }
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
                        if let client = streams[d] {
                            // No answer in time: a new connection, the packet again.
                            client.disconnect()
                            answered[first] = nil
                            let opening = SimEncoder.opening(
                                devices[d].proto, device: devices[d].device)
                            open(
                                d, opening: opening, then: Array(f.bytes.dropFirst(opening.count)),
                                keys: f.keys)
                        } else {
                            sockets[socketOf[d]].socket.send(f.bytes)
                        }
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
            for (proto, socket) in sockets {
                while let bytes = socket.receive(timeoutMs: 0) {
                    got = true
                    guard let r = SimEncoder.acknowledged(proto, reply: bytes) else { continue }
                    var touched = Set<Int64>()
                    for key in r.acked {
                        guard let first = keyOwner[key] else { continue }
                        answered[first, default: []].insert(key)
                        touched.insert(first)
                        report.acked += r.fixes ?? 1
                    }
                    for (key, reason) in r.rejected {
                        guard let first = keyOwner[key] else { continue }
                        answered[first, default: []].insert(key)
                        touched.insert(first)
                        report.rejected[reason.rawValue, default: 0] += 1
                    }
                    for first in touched {
                        if let f = flights[first], answered[first]?.count == f.keys.count {
                            land(first)
                        }
                    }
                }
            }
            for (d, client) in streams {
                client.poll()
                while let (n, kind) = SimEncoder.streamAnswer(
                    devices[d].proto, client.received, opened: opened[d] ?? false)
                {
                    client.take(n)
                    got = true
                    switch kind {
                    case .opening(let accepted):
                        opened[d] = true
                        if !accepted { report.rejected["handshake_refused", default: 0] += 1 }
                    case .answer:
                        guard let key = owed[d]?.first else { continue }
                        owed[d]?.removeFirst()
                        guard let first = keyOwner[key] else { continue }
                        if answered[first, default: []].insert(key).inserted {
                            report.acked += keyFixes[key] ?? 1
                        }
                        if let f = flights[first], answered[first]?.count == f.keys.count {
                            land(first)
                        }
                    case .other:
                        break
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
