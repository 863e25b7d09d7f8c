import FleetProtocols
import FleetTracking
import Foundation
import Logging
import NIOCore

/// Where datagrams enter: decode (pure), screen (pure), count and log what
/// is refused, and hand the rest to the engine's queue.
final class Door: Sendable {
    let queue: InboundQueue
    let metrics: Metrics
    let screen: ScreenPolicy
    let logger: Logger
    let rejectLog: RateLimiter

    init(
        queue: InboundQueue, metrics: Metrics, screen: ScreenPolicy, logger: Logger,
        rejectLogPerSecond: Int
    ) {
        self.queue = queue
        self.metrics = metrics
        self.screen = screen
        self.logger = logger
        self.rejectLog = RateLimiter(perSecond: rejectLogPerSecond)
    }

    /// Decodes and screens one JSON datagram.
    func json(
        _ bytes: UnsafeBufferPointer<UInt8>, from address: SocketAddress, channel: any Channel,
        receivedMs: Int64
    ) -> InboundDatagram {
        let out = JSONFixDecoder.decode(bytes)
        var d = InboundDatagram(
            fixes: [], seqs: [], rejected: [], replyTo: nil, receivedMs: receivedMs)
        d.fixes.reserveCapacity(out.items.count)
        var wantsReply = false
        for item in out.items {
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
        if wantsReply { d.replyTo = ReplyRoute(channel: channel, address: address) }
        return d
    }

    /// Counts a refusal and logs it (bounded rate) with the datagram's head in hex.
    func refuse(
        _ proto: String, _ reason: RejectReason, _ detail: String,
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ address: SocketAddress
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
