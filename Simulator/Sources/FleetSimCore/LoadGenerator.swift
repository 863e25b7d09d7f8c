import CBatchUDP
import FleetModel
import FleetProtocols
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Plays many devices against fleetd at an offered rate, for a duration, the
/// way devices behave: every datagram is kept until fleetd acknowledges it
/// and resent after a timeout (a few times at most).
///
/// Cheap by design, since on a small machine it shares the cores with the
/// daemon: datagrams are built into one buffer and sent 64 at a time with
/// sendmmsg(2); replies are drained with recvmmsg(2). One thread.
///
/// Device `d` starts at `points[d % points.count]` and drives at 36 km/h
/// (10 m per fix, one fix per second of fix time, starting a day ago).
public final class LoadGenerator {
    private let client: UDPClient
    private let options: LoadOptions
    private let points: [(lat: Double, lon: Double)]
    private let t0Ms: Int64
    /// Each device's next fix number: runs continue the devices' tracks.
    private var nextFix: [Int32]
    /// Told of each datagram's first send, when set.
    public var clock: SendClock?
    /// Scratch for the Teltonika records of one datagram.
    private var records: [TeltonikaEncoder.Record] = []
    /// The IO elements every Teltonika record carries: ignition on (239),
    /// external voltage 12.6 V (66).
    private static let teltonikaIO: [(id: UInt16, width: Int, value: UInt64)] = [
        (239, 1, 1), (66, 2, 12_600),
    ]

    /// A datagram sent and not yet acknowledged.
    private struct Pending {
        var device: Int32
        var firstFix: Int32
        var fixes: UInt8
        var firstSentNs: UInt64
        var lastSentNs: UInt64
        var sends: UInt8
    }

    public init(client: UDPClient, options: LoadOptions, points: [(lat: Double, lon: Double)]) {
        self.client = client
        self.options = options
        self.points = points.isEmpty ? [(48.85, 2.35)] : points
        self.t0Ms = WallClock.system.nowMs() - 86_400_000
        self.nextFix = [Int32](repeating: 0, count: options.devices)
    }

    /// Every device sends one fix, `rate` datagrams per second, and the run
    /// waits for their acknowledgements: fleetd then knows every device (its
    /// first fences entered), and a following `run` measures the steady state.
    ///
    /// The warm-up is an alert storm (each first fix enters every fence
    /// around it), acknowledged as late as a device allows: its devices wait
    /// 30 s before resending, as a Teltonika unit does by default (response
    /// timeout, parameter 1001), and the shared acknowledging harness's
    /// warm-up does not resend at all. (The measured steps resend after
    /// `resendAfterMs`.)
    public func warmUp(rate: Double) -> LoadReport {
        var o = options
        o.rate = rate
        o.seconds = Double(o.devices) / rate
        o.fixesPerDatagram = 1
        o.drainSeconds = max(o.drainSeconds, 30)
        o.resendAfterMs = max(o.resendAfterMs, Self.deviceResponseTimeoutMs)
        return run(o)
    }

    /// How long a Teltonika unit waits for an acknowledgement before it
    /// resends, by default (parameter 1001), ms.
    public static let deviceResponseTimeoutMs = 30_000

    /// The shortest sleep between two rounds of sending and reading, ns:
    /// acknowledgement latencies are measured to within about this much.
    static let tickNs: UInt64 = 500_000

    private static func nowNs() -> UInt64 { SendClock.now() }

    /// Offers load for `options.seconds`, then waits (up to `drainSeconds`)
    /// for the outstanding acknowledgements, resending as devices do.
    public func run() -> LoadReport { run(options) }

    /// `run` at another offered rate (datagrams/s), the devices' tracks continuing.
    public func run(rate: Double) -> LoadReport {
        var o = options
        o.rate = rate
        return run(o)
    }

    private func run(_ o: LoadOptions) -> LoadReport {
        var report = LoadReport(options: o)
        let fd = client.descriptor
        var pending: [UInt32: Pending] = [:]
        pending.reserveCapacity(Int(min(o.rate * 3, 4_000_000)))
        var order: [(key: UInt32, at: UInt64)] = []  // resend candidates, oldest first
        var orderHead = 0
        var counter: UInt32 = 0
        var out: [UInt8] = []
        var offsets: [UInt32] = []
        var lengths: [UInt32] = []
        let slot = 2048
        var inBuf = [UInt8](repeating: 0, count: slot * 64)
        var inLengths = [UInt32](repeating: 0, count: 64)
        let acksPerFix = o.proto == .json
        let resendNs = UInt64(o.resendAfterMs) * 1_000_000
        let start = Self.nowNs()
        let sendEnd = start + UInt64(o.seconds * 1e9)
        var firstSends = 0
        var lastAckNs = start

        func append(_ p: Pending, key: UInt32) {
            offsets.append(UInt32(out.count))
            encode(p, key: key, into: &out)
            lengths.append(UInt32(out.count) - offsets.last!)
        }
        func flush() {
            var done = 0
            while done < offsets.count {
                let n = out.withUnsafeBufferPointer { b in
                    offsets[done...].withUnsafeBufferPointer { off in
                        lengths[done...].withUnsafeBufferPointer { len in
                            cbu_send_batch(
                                fd, b.baseAddress!, off.baseAddress!, len.baseAddress!,
                                Int32(off.count))
                        }
                    }
                }
                if n <= 0 {
                    report.sendErrors += offsets.count - done
                    break
                }
                done += Int(n)
            }
            out.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            lengths.removeAll(keepingCapacity: true)
        }
        func receive(_ now: UInt64) -> Bool {
            let n = inBuf.withUnsafeMutableBufferPointer { b in
                inLengths.withUnsafeMutableBufferPointer { l in
                    cbu_recv_batch(fd, b.baseAddress!, UInt32(slot), l.baseAddress!, 64)
                }
            }
            guard n > 0 else { return false }
            for i in 0..<Int(n) {
                let reply = inBuf[(i * slot)..<(i * slot + Int(inLengths[i]))]
                var fixes = 0
                var matched = false
                func match(_ k: UInt32) {
                    if let p = pending.removeValue(forKey: k) {
                        matched = true
                        report.latenciesMs.append(Float(Double(now - p.firstSentNs) / 1e6))
                    }
                }
                if acksPerFix {
                    guard let r = JSONReply.parse(Array(reply)) else { continue }
                    // A datagram's lines are answered together; its key is its first seq.
                    for s in r.acked { match(UInt32(truncatingIfNeeded: s)) }
                    for x in r.rejected { match(UInt32(truncatingIfNeeded: x.seq)) }
                    report.fixesRejected += r.rejected.count
                    fixes = r.acked.count
                } else {
                    // Teltonika: 7 bytes, the packet id at 2-3, the AVL packet id at 5.
                    guard reply.count == 7 else { continue }
                    let b = reply.startIndex
                    match(
                        UInt32(reply[b + 2]) << 8 | UInt32(reply[b + 3]) | UInt32(reply[b + 5])
                            << 16)
                    fixes = Int(reply[b + 6])
                }
                if matched {
                    report.fixesAcked += fixes
                    lastAckNs = now
                } else {
                    report.duplicateReplies += 1
                }
            }
            return true
        }
        func resendDue(_ now: UInt64) {
            while orderHead < order.count {
                let (k, at) = order[orderHead]
                guard let p = pending[k] else {
                    orderHead += 1
                    continue
                }
                guard p.lastSentNs == at else {  // an older entry of a resent datagram
                    orderHead += 1
                    continue
                }
                guard now - at >= resendNs else { break }
                orderHead += 1
                if Int(p.sends) >= o.maxSends {
                    pending[k] = nil
                    report.fixesUnacked += Int(p.fixes)
                    continue
                }
                var q = p
                q.lastSentNs = now
                q.sends += 1
                pending[k] = q
                order.append((k, now))
                append(q, key: k)
                report.resentDatagrams += 1
                if offsets.count >= o.batch { flush() }
            }
            if orderHead > 65_536 && orderHead * 2 > order.count {
                order.removeFirst(orderHead)
                orderHead = 0
            }
        }

        var lastResendCheck: UInt64 = 0
        while true {
            let now = Self.nowNs()
            if now >= sendEnd {
                if pending.isEmpty || now >= sendEnd + UInt64(o.drainSeconds * 1e9) { break }
            } else {
                // Paced: datagram k is due at start + k / rate.
                let due = Int(Double(now - start) / 1e9 * o.rate)
                while firstSends < due {
                    let device = firstSends % o.devices
                    let k: UInt32
                    if acksPerFix {
                        k = counter &+ 1
                        counter &+= UInt32(o.fixesPerDatagram)
                    } else {
                        // Teltonika: 16-bit packet id and 8-bit AVL packet id.
                        counter &+= 1
                        k = o.proto == .teltonika ? counter & 0xFF_FFFF : counter
                    }
                    let p = Pending(
                        device: Int32(device), firstFix: nextFix[device],
                        fixes: UInt8(o.fixesPerDatagram), firstSentNs: now,
                        lastSentNs: now, sends: 1)
                    nextFix[device] += Int32(o.fixesPerDatagram)
                    clock?.mark(device, now)
                    if o.proto != .nmea {
                        pending[k] = p
                        order.append((k, now))
                    }
                    append(p, key: k)
                    firstSends += 1
                    if offsets.count >= o.batch { flush() }
                }
                if !offsets.isEmpty { flush() }
            }
            var got = receive(now)
            while got { got = receive(now) }
            if now - lastResendCheck > 5_000_000 {
                lastResendCheck = now
                resendDue(now)
                if !offsets.isEmpty { flush() }
            }
            // Paced in ticks: sleep until the next datagram is due, but at least
            // `tickNs` (at most 1 ms), so that what comes due meanwhile goes out in
            // one sendmmsg and the acks are read in batches. Sending each datagram
            // as it came due kept this loop spinning, on a core fleetd needs.
            let nextDue = start + UInt64(Double(firstSends + 1) / o.rate * 1e9)
            let later = Self.nowNs()
            let wait =
                now >= sendEnd
                ? 1_000_000
                : max(Self.tickNs, min(nextDue > later ? nextDue - later : 0, 1_000_000))
            var ts = timespec(tv_sec: 0, tv_nsec: Int(wait))
            nanosleep(&ts, nil)
        }
        report.sendSeconds = o.seconds
        report.fixesSent = firstSends * o.fixesPerDatagram
        report.fixesUnacked += pending.values.reduce(0) { $0 + Int($1.fixes) }
        report.ackSeconds = Double(lastAckNs - start) / 1e9
        report.latenciesMs.sort()
        return report
    }

    /// Where device `device` is at its fix number `k`: it starts at
    /// `points[device % points.count]` and heads north, east, south or west
    /// (by `device % 4`, the course `device % 4 × 90°`), 10 m per fix.
    public static func position(device: Int, fix k: Int, points: [(lat: Double, lon: Double)])
        -> (lat: Double, lon: Double)
    {
        let base = points[device % points.count]
        let step = 10.0 / 111_195.0
        let (dLat, dLon): (Double, Double) =
            switch device % 4 {
            case 0: (step, 0)
            case 1: (0, step / cos(base.lat * .pi / 180))
            case 2: (-step, 0)
            default: (0, -step / cos(base.lat * .pi / 180))
            }
        return (base.lat + Double(k) * dLat, base.lon + Double(k) * dLon)
    }

    /// The datagram of `p` (its device, its fixes from its first), keyed by `key`.
    private func encode(_ p: Pending, key: UInt32, into out: inout [UInt8]) {
        let device = Int(p.device)
        let count = Int(p.fixes)
        /// The datagram's fix `j`: one second of fix time after the one before.
        func fix(_ j: Int) -> (time: Int64, lat: Double, lon: Double) {
            let at = Self.position(device: device, fix: Int(p.firstFix) + j, points: points)
            return (t0Ms + Int64(p.firstFix) * 1000 + Int64(j) * 1000, at.lat, at.lon)
        }
        switch options.proto {
        case .teltonika:
            // The hot case: records built in reused storage, the datagram
            // appended in place (no array per datagram).
            records.removeAll(keepingCapacity: true)
            for j in 0..<count {
                let f = fix(j)
                var r = TeltonikaEncoder.Record(time: f.time, lat: f.lat, lon: f.lon)
                r.speedKmh = 36
                r.angle = UInt16((device % 4) * 90)
                r.io = Self.teltonikaIO
                records.append(r)
            }
            TeltonikaEncoder.appendUDP(
                to: &out, packetId: UInt16(truncatingIfNeeded: key),
                avlPacketId: UInt8(truncatingIfNeeded: key >> 16),
                imei: String(350_000_000_000_000 + device), records: records)
        case .json:
            for j in 0..<count {
                let f = fix(j)
                if j > 0 { out.append(0x0A) }
                let point = RoutePoint(lat: f.lat, lon: f.lon, time: f.time, speedMps: 10)
                out.append(
                    contentsOf: FixEncoder.json(
                        device: "d\(device)", point: point, seq: Int64(key) + Int64(j)
                    ).utf8)
            }
        case .nmea:
            var lines = [NMEAEncoder.checksummed("$PFLID,d\(device)")]
            for j in 0..<count {
                let f = fix(j)
                let c = NMEAEncoder.clock(ms: f.time)
                let at = "\(NMEAEncoder.latitude(f.lat)),\(NMEAEncoder.longitude(f.lon))"
                lines.append(
                    NMEAEncoder.checksummed(
                        "$GPRMC,\(c.time),A,\(at),019.4,\((device % 4) * 90).0,\(c.date),,,A"))
                lines.append(
                    NMEAEncoder.checksummed("$GPGGA,\(c.time),\(at),1,09,0.9,35.0,M,47.0,M,,"))
            }
            out.append(contentsOf: lines.map { $0 + "\r\n" }.joined().utf8)
        case .osmand, .teltonikaTCP, .gt06, .h02:
            // `LoadOptions.protocols` holds the UDP ones only; the commands check it.
            preconditionFailure("the load generator sends datagrams: \(options.proto) is not UDP")
        }
    }
}
