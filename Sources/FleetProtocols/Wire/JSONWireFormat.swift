import FleetModel

/// fleetd's JSON fix datagrams (JSON Lines, `JSONFixDecoder`), answered
/// with `{"ack":[…],"rejected":[…]}` (`JSONReply`) naming fixes by `seq`.
///
/// A reply is never larger than the datagram it answers: rejections that
/// would make it larger are left out (they are still counted and logged),
/// so a forged source address draws at most as many bytes as were sent in
/// its name (no amplification: 1 984 nine-byte lines `{"seq":1` once drew
/// 65 KB of rejections). Acknowledgements always fit: each names a line
/// longer than its number.
public final class JSONWireFormat: WireFormat {
    public let trackerProtocol = TrackerProtocol.json

    public init() {}

    public func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding {
        let out = JSONFixDecoder.decode(bytes)
        var d = WireDecoding(rejections: out.rejections)
        d.receivedBytes = bytes.count
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
        var bytes = reply.encoded()
        if bytes.count > d.receivedBytes, !reply.rejected.isEmpty {
            // Keep the acknowledgements and the most rejections that fit
            // (a binary search over how many: the size grows with them).
            let all = reply.rejected
            var (fits, tooMany) = (0, all.count)
            while tooMany - fits > 1 {
                let mid = (fits + tooMany) / 2
                reply.rejected = Array(all.prefix(mid))
                if reply.encoded().count <= d.receivedBytes { fits = mid } else { tooMany = mid }
            }
            reply.rejected = Array(all.prefix(fits))
            bytes = reply.encoded()
        }
        return reply.isEmpty ? nil : WireReply(bytes)
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        locate(item: d.item(of: index))
    }

    public func locate(item index: Int) -> String { "line \(index + 1)" }
}
