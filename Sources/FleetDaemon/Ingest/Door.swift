import FleetProtocols
import FleetTracking
import Foundation
import Logging

/// Where datagrams enter, whatever their protocol: what a `WireFormat`
/// decoded is screened (pure), refusals are counted and logged, and the
/// rest becomes an `InboundDatagram` for the engine's queue, with the reply
/// its sender is owed once it is committed.
final class Door: Sendable {
    let queue: InboundQueue
    let metrics: Metrics
    let screen: ScreenPolicy
    let logger: Logger
    let rejectLog: RateLimiter
    /// Registered device ids, when unknown devices are refused; nil accepts all.
    let registered: DeviceRegistry?

    /// False when unknown devices are refused and `device` is not registered.
    func known(_ device: String) -> Bool {
        guard let registered else { return true }
        return registered.contains(device)
    }

    init(
        queue: InboundQueue, metrics: Metrics, screen: ScreenPolicy, logger: Logger,
        rejectLogPerSecond: Int, registered: Set<String>? = nil
    ) {
        self.registered = registered.map(DeviceRegistry.init)
        self.queue = queue
        self.metrics = metrics
        self.screen = screen
        self.logger = logger
        self.rejectLog = RateLimiter(perSecond: rejectLogPerSecond)
    }

    /// Screens one decoded datagram of `format` from `peer`, received at
    /// `receivedMs`: nil when it is refused whole (no reply: the sender
    /// resends). Refused items are counted and logged (`bytes`, the
    /// datagram, shown in hex; `bytes` and `peer` are nil for fixes a format
    /// held back and released later); the rest keep their order, and the
    /// reply is what the format owes for them. `route` is where it goes.
    func admit(
        _ d: WireDecoding, format: any WireFormat, bytes: UnsafeBufferPointer<UInt8>?,
        peer: PeerAddress?, route: ReplyRoute?, receivedMs: Int64
    ) -> InboundDatagram? {
        for r in d.rejections {
            refuse(
                format.name, r.reason, "\(format.locate(item: r.item)): \(r.detail)", bytes, peer)
        }
        if let r = d.refusal {
            refuse(format.name, r.reason, r.detail, bytes, peer)
            return nil
        }
        var refused: [(fix: Int, reason: RejectReason)] = []
        for (i, fix) in d.fixes.enumerated() {
            if let (reason, detail) = refusal(of: fix, receivedMs: receivedMs) {
                refused.append((i, reason))
                refuse(
                    format.name, reason, "\(format.locate(fix: i, in: d)): \(detail)", bytes, peer)
            }
        }
        // The usual case, every fix passes: the decoder's array is handed on
        // as it is (no copy, no allocation).
        var out = InboundDatagram(
            fixes: d.fixes, reply: d.reply, replyTo: route, receivedMs: receivedMs)
        if !refused.isEmpty {
            // The format says what is owed now (Teltonika: nothing for an
            // unregistered device, so its resends are taken once it is).
            out.reply = format.reply(to: d, refused: refused)
            if out.reply == nil, refused.count == d.fixes.count,
                refused.contains(where: { $0.reason == .unknownDevice })
            {
                return nil  // refused whole: nothing kept, nothing answered
            }
            var k = 0
            out.fixes = []
            out.fixes.reserveCapacity(d.fixes.count - refused.count)
            for (i, fix) in d.fixes.enumerated() {
                if k < refused.count, refused[k].fix == i {
                    k += 1
                } else {
                    out.fixes.append(fix)
                }
            }
        }
        if out.reply == nil { out.replyTo = nil }
        return out
    }

    /// Screens one fix that came alone (an OsmAnd request) under `proto`:
    /// nil when it passes; else the refusal, counted and logged.
    func screenOne(_ fix: Fix, proto: String, receivedMs: Int64, from peer: String)
        -> (RejectReason, String)?
    {
        metrics.received(proto, datagrams: 1, fixes: 1)
        let r = refusal(of: fix, receivedMs: receivedMs)
        if let (reason, detail) = r {
            refuse(proto, reason, "request from \(peer): \(detail)", nil, nil)
        }
        return r
    }

    /// Why `fix` is refused (an unregistered device, then the screen), or nil.
    private func refusal(of fix: Fix, receivedMs: Int64) -> (RejectReason, String)? {
        if !known(fix.device) { return (.unknownDevice, "device \(fix.device) is not registered") }
        return screen.check(fix, receivedAtMs: receivedMs)
    }

    /// Counts a refusal and logs it (bounded rate) with the datagram's head
    /// in hex; `detail` is built only for the lines logged.
    func refuse(
        _ proto: String, _ reason: RejectReason, _ detail: @autoclosure () -> String,
        _ bytes: UnsafeBufferPointer<UInt8>?, _ address: PeerAddress?
    ) {
        metrics.rejected(proto, reason)
        let (ok, suppressed) = rejectLog.admit()
        guard ok else { return }
        var line =
            "rejected \(proto) \(address.map { "datagram from \($0)" } ?? "held fix"): \(reason.rawValue): \(detail())"
        if let bytes {
            let head = bytes.prefix(48).map { String($0, radix: 16).leftPadded(2) }.joined()
            line += " [\(bytes.count) bytes: \(head)\(bytes.count > 48 ? "…" : "")]"
        }
        if suppressed > 0 { line += " (\(suppressed) similar lines suppressed)" }
        logger.warning("\(line)")
    }
}

extension String {
    func leftPadded(_ n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}
