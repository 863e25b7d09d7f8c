import FleetProtocols
import NIOCore

/// What the door hands the engine for one datagram: its screened fixes and
/// what the sender must be told once they are committed.
struct InboundDatagram: Sendable {
    var fixes: [Fix]
    /// The sender's sequence number per fix (parallel to `fixes`).
    var seqs: [Int64?]
    /// Lines refused at the door that carried a `seq`.
    var rejected: [(seq: Int64, reason: RejectReason)]
    /// Where to reply; nil when the sender asked for nothing.
    var replyTo: ReplyRoute?
    /// Wall-clock receive time, Unix ms.
    var receivedMs: Int64
}

/// A channel and a peer address to send a reply to.
struct ReplyRoute: Sendable {
    let channel: any Channel
    let address: SocketAddress
}
