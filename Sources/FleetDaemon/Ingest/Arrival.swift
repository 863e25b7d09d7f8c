import FleetModel
import FleetProtocols

/// What the door hands the engine for one unit a transport received (a
/// datagram, an HTTP request): its screened fixes, and what its sender is
/// owed once they are committed.
struct Arrival: Sendable {
    /// The screened fixes, a lone one inline.
    var fixes: ArrivalFixes
    /// The bytes owed once `fixes` are committed, whatever the protocol
    /// (nil: none). Sent by the reply sink for `.datagram`; read by the
    /// transport for `.waiter`.
    var reply: WireReply?
    /// How the sender is answered.
    var ack: Acknowledgement
    /// Wall-clock receive time, Unix ms.
    var receivedMs: Int64

    init(fixes: [Fix], reply: WireReply?, ack: Acknowledgement, receivedMs: Int64) {
        self.fixes = ArrivalFixes(fixes)
        self.reply = reply
        self.ack = ack
        self.receivedMs = receivedMs
    }

    /// Adds this arrival's reply (when it has one and is answered by
    /// datagram) to `batch`, addressed to its sender, written in place.
    func appendReply(to batch: inout ReplyBatch) {
        guard case .datagram(let route) = ack, let reply else { return }
        batch.append(to: route.address) { reply.write(into: &$0) }
    }

    /// The socket its reply goes out on, for `.datagram` arrivals with a reply.
    var replySocket: UDPSocket? {
        guard case .datagram(let route) = ack, reply != nil else { return nil }
        return route.socket
    }
}
