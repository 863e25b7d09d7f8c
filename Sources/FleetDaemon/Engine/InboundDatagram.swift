import FleetProtocols

/// What the door hands the engine for one datagram: its screened fixes and
/// what the sender must be told once they are committed.
struct InboundDatagram: Sendable {
    var fixes: [Fix]
    /// JSON: the sender's sequence number per fix (parallel to `fixes`).
    /// Empty for the other protocols, whose replies do not name fixes.
    var seqs: [Int64?]
    /// Lines refused at the door that carried a `seq`.
    var rejected: [(seq: Int64, reason: RejectReason)]
    /// Where to reply; nil when the sender asked for nothing.
    var replyTo: ReplyRoute?
    /// The reply's kind: JSON acks, or a Teltonika acknowledgement.
    var teltonikaAck: (packetId: UInt16, avlPacketId: UInt8, records: UInt8)?
    /// Wall-clock receive time, Unix ms.
    var receivedMs: Int64
}

extension InboundDatagram {
    /// Adds this datagram's reply (when it has one) to `batch`, addressed to
    /// its sender; the Teltonika acknowledgement is written in place.
    func appendReply(to batch: inout ReplyBatch) {
        guard let route = replyTo else { return }
        if let t = teltonikaAck {
            batch.append(to: route.address) {
                TeltonikaPacket.appendReply(
                    to: &$0, packetId: t.packetId, avlPacketId: t.avlPacketId, accepted: t.records)
            }
        } else if let bytes = replyBytes() {
            batch.append(to: route.address, bytes: bytes)
        }
    }

    /// The bytes to send once this datagram's fixes are committed, if any.
    func replyBytes() -> [UInt8]? {
        if let t = teltonikaAck {
            return TeltonikaPacket.reply(
                packetId: t.packetId, avlPacketId: t.avlPacketId, accepted: t.records)
        }
        var reply = JSONReply(acked: seqs.compactMap { $0 }, rejected: rejected)
        reply.rejected.sort { $0.seq < $1.seq }
        return reply.isEmpty ? nil : reply.encoded()
    }
}

/// A socket and a peer address to send a reply to.
struct ReplyRoute: Sendable {
    let socket: UDPSocket
    let address: PeerAddress
}
