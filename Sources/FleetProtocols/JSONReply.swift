import FleetJSON
import FleetModel

/// The reply to a JSON fix datagram, sent to its source after commit.
///
/// `{"ack":[seq,…]}` lists the sequence numbers of the fixes now stored;
/// `"rejected":[{"seq":n,"reason":"…"},…]` (present only when some line that
/// carried a `seq` was refused) tells the sender not to resend those, since
/// resending would not make them valid.
public struct JSONReply: Sendable, Equatable {
    public var acked: [Int64]
    public var rejected: [(seq: Int64, reason: RejectReason)]

    public init(acked: [Int64] = [], rejected: [(seq: Int64, reason: RejectReason)] = []) {
        self.acked = acked
        self.rejected = rejected
    }

    public static func == (a: JSONReply, b: JSONReply) -> Bool {
        a.acked == b.acked
            && a.rejected.elementsEqual(b.rejected) { $0.seq == $1.seq && $0.reason == $1.reason }
    }

    /// True when there is nothing to tell the sender.
    public var isEmpty: Bool { acked.isEmpty && rejected.isEmpty }

    /// The reply's bytes (one JSON object, no newline).
    public func encoded() -> [UInt8] {
        var s = "{\"ack\":[" + acked.map(String.init).joined(separator: ",") + "]"
        if !rejected.isEmpty {
            s += ",\"rejected\":["
            s += rejected.map { "{\"seq\":\($0.seq),\"reason\":\"\($0.reason.rawValue)\"}" }.joined(
                separator: ",")
            s += "]"
        }
        return Array((s + "}").utf8)
    }

    /// Parses a reply (the simulator and tests read them). Nil when malformed.
    public static func parse(_ bytes: [UInt8]) -> JSONReply? {
        guard let doc = try? JSONReader.parseDocument(bytes), case .array(let acks)? = doc["ack"]
        else {
            return nil
        }
        var reply = JSONReply()
        for a in acks {
            guard case .number(let n) = a else { return nil }
            reply.acked.append(Int64(n))
        }
        if case .array(let rej)? = doc["rejected"] {
            for r in rej {
                guard case .number(let n)? = r["seq"], case .string(let why)? = r["reason"],
                    let reason = RejectReason(rawValue: why)
                else { return nil }
                reply.rejected.append((Int64(n), reason))
            }
        }
        return reply
    }
}
