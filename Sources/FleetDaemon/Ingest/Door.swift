import FleetProtocols
import FleetTracking
import Foundation
import Logging

/// Where datagrams enter: decode (pure), screen (pure), count and log what
/// is refused, and hand the rest to the engine's queue.
final class Door: Sendable {
    let queue: InboundQueue
    let metrics: Metrics
    let screen: ScreenPolicy
    let logger: Logger
    let rejectLog: RateLimiter
    /// NMEA senders' device ids by "ip:port" or "ip" (`[nmea.devices]`).
    let nmeaDevices: [String: String]
    /// Registered device ids, when unknown devices are refused; nil accepts all.
    let registered: DeviceRegistry?

    /// False when unknown devices are refused and `device` is not registered.
    func known(_ device: String) -> Bool {
        guard let registered else { return true }
        return registered.contains(device)
    }

    init(
        queue: InboundQueue, metrics: Metrics, screen: ScreenPolicy, logger: Logger,
        rejectLogPerSecond: Int,
        nmeaDevices: [String: String] = [:], registered: Set<String>? = nil
    ) {
        self.registered = registered.map(DeviceRegistry.init)
        self.queue = queue
        self.metrics = metrics
        self.screen = screen
        self.logger = logger
        self.rejectLog = RateLimiter(perSecond: rejectLogPerSecond)
        self.nmeaDevices = nmeaDevices
    }

    /// Decodes and screens one Teltonika datagram. Nil when the packet is
    /// refused whole (no reply: the device resends). Records screened out are
    /// counted and dropped; the packet is still acknowledged in full.
    func teltonika(
        _ bytes: UnsafeBufferPointer<UInt8>, from address: PeerAddress, socket: UDPSocket,
        receivedMs: Int64
    ) -> InboundDatagram? {
        switch TeltonikaDecoder.decode(bytes) {
        case .failure(let f):
            refuse("teltonika", f.reason, f.detail, bytes, address)
            return nil
        case .success(let packet):
            guard known(packet.imei) else {
                // Not answered: once the device is registered, its resends are taken.
                refuse(
                    "teltonika", .unknownDevice, "IMEI \(packet.imei) is not registered", bytes,
                    address)
                return nil
            }
            var d = InboundDatagram(
                fixes: [], seqs: [], rejected: [],
                replyTo: ReplyRoute(socket: socket, address: address),
                receivedMs: receivedMs)
            d.teltonikaAck = (packet.packetId, packet.avlPacketId, UInt8(packet.fixes.count))
            // The usual case, every record passes: the decoder's array is
            // handed on as it is (no copy, no allocation).
            var refused = 0
            for (i, fix) in packet.fixes.enumerated() {
                if let (reason, detail) = screen.check(fix, receivedAtMs: receivedMs) {
                    refuse(
                        "teltonika", reason, "IMEI \(packet.imei) record \(i): \(detail)", bytes,
                        address)
                    refused += 1
                }
            }
            d.fixes =
                refused == 0
                ? packet.fixes
                : packet.fixes.filter { screen.check($0, receivedAtMs: receivedMs) == nil }
            return d
        }
    }

    /// The device id of an NMEA datagram: its `$PFLID`, else the sender's
    /// address in `[nmea.devices]` ("ip:port" first, then "ip").
    func nmeaDevice(_ sentences: [NMEASentence], from address: PeerAddress) -> String? {
        for s in sentences { if case .identity(let id) = s { return id } }
        return nmeaDevices[address.text] ?? nmeaDevices[address.ip]
    }

    /// Screens NMEA fixes of one device into a datagram for the engine (no reply).
    func screened(_ fixes: [Fix], proto: String, receivedMs: Int64) -> InboundDatagram {
        var d = InboundDatagram(
            fixes: [], seqs: [], rejected: [], replyTo: nil, receivedMs: receivedMs)
        for fix in fixes {
            if !known(fix.device) {
                metrics.rejected(proto, .unknownDevice)
                continue
            }
            if let (reason, _) = screen.check(fix, receivedAtMs: receivedMs) {
                metrics.rejected(proto, reason)
                continue
            }
            d.fixes.append(fix)
        }
        return d
    }

    /// Decodes and screens one JSON datagram.
    func json(
        _ bytes: UnsafeBufferPointer<UInt8>, from address: PeerAddress, socket: UDPSocket,
        receivedMs: Int64
    ) -> InboundDatagram {
        let out = JSONFixDecoder.decode(bytes)
        var d = InboundDatagram(
            fixes: [], seqs: [], rejected: [], replyTo: nil, receivedMs: receivedMs)
        d.fixes.reserveCapacity(out.items.count)
        var wantsReply = false
        for item in out.items {
            if !known(item.fix.device) {
                refuse(
                    "json", .unknownDevice,
                    "line \(item.line): device \(item.fix.device) is not registered", bytes, address
                )
                if let seq = item.seq {
                    d.rejected.append((seq, .unknownDevice))
                    wantsReply = true
                }
                continue
            }
            if let (reason, detail) = screen.check(item.fix, receivedAtMs: receivedMs) {
                refuse("json", reason, "line \(item.line): \(detail)", bytes, address)
                if let seq = item.seq {
                    d.rejected.append((seq, reason))
                    wantsReply = true
                }
                continue
            }
            d.fixes.append(item.fix)
            d.seqs.append(item.seq)
            if item.seq != nil { wantsReply = true }
        }
        for r in out.rejections {
            refuse("json", r.reason, "line \(r.item): \(r.detail)", bytes, address)
            if let seq = r.seq {
                d.rejected.append((seq, r.reason))
                wantsReply = true
            }
        }
        if wantsReply { d.replyTo = ReplyRoute(socket: socket, address: address) }
        return d
    }

    /// Counts a refusal and logs it (bounded rate) with the datagram's head in hex.
    func refuse(
        _ proto: String, _ reason: RejectReason, _ detail: String,
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ address: PeerAddress
    ) {
        metrics.rejected(proto, reason)
        let (ok, suppressed) = rejectLog.admit()
        guard ok else { return }
        let head = bytes.prefix(48).map { String($0, radix: 16).leftPadded(2) }.joined()
        var line =
            "rejected \(proto) datagram from \(address): \(reason.rawValue): \(detail) [\(bytes.count) bytes: \(head)\(bytes.count > 48 ? "…" : "")]"
        if suppressed > 0 { line += " (\(suppressed) similar lines suppressed)" }
        logger.warning("\(line)")
    }
}

extension String {
    func leftPadded(_ n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}
