import FleetProtocols

/// What the door hands the engine for one datagram: its screened fixes and
/// what the sender must be told once they are committed.
struct InboundDatagram: Sendable {
    var fixes: [Fix]
    /// The reply owed once `fixes` are committed, whatever the protocol.
    var reply: WireReply?
    /// Where to send `reply`.
    var replyTo: ReplyRoute?
    /// Wall-clock receive time, Unix ms.
    var receivedMs: Int64
    /// A request waiting for this commit (HTTP doors), told by the reply sink.
    var waiter: CommitWaiter? = nil
}

extension InboundDatagram {
    /// Adds this datagram's reply (when it has one) to `batch`, addressed to
    /// its sender, written in place.
    func appendReply(to batch: inout ReplyBatch) {
        guard let route = replyTo, let reply else { return }
        batch.append(to: route.address) { reply.write(into: &$0) }
    }
}

/// A socket and a peer address to send a reply to.
struct ReplyRoute: Sendable {
    let socket: UDPSocket
    let address: PeerAddress
}
