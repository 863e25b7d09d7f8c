import FleetModel

/// fleetd's JSON fix datagrams (JSON Lines, `JSONFixDecoder`), answered
/// with `{"ack":[…],"rejected":[…]}` (`JSONReply`) naming fixes by `seq`.
public final class JSONWireFormat: WireFormat {
    public let trackerProtocol = TrackerProtocol.json

    public init() {}

    public func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding {
        let out = JSONFixDecoder.decode(bytes)
        var d = WireDecoding(rejections: out.rejections)
        d.fixes.reserveCapacity(out.items.count)
        d.tokens.reserveCapacity(out.items.count)
        d.items.reserveCapacity(out.items.count)
        for item in out.items {
            d.fixes.append(item.fix)
            d.tokens.append(item.seq)
            d.items.append(item.line)
        }
        d.reply = reply(to: d, refused: [])
        return d
    }

    public func reply(to d: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?
    {
        var reply = JSONReply()
        var k = 0  // `refused` is in fix order
        for (i, token) in d.tokens.enumerated() {
            if k < refused.count, refused[k].fix == i {
                if let token { reply.rejected.append((token, refused[k].reason)) }
                k += 1
            } else if let token {
                reply.acked.append(token)
            }
        }
        for r in d.rejections { if let seq = r.seq { reply.rejected.append((seq, r.reason)) } }
        reply.rejected.sort { $0.seq < $1.seq }
        return reply.isEmpty ? nil : WireReply(reply.encoded())
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        locate(item: d.item(of: index))
    }

    public func locate(item index: Int) -> String { "line \(index + 1)" }
}
