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

    /// The reply's bytes (one JSON object, no newline), written byte by
    /// byte: one is built for every datagram that asks for a reply.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(10 + acked.count * 12 + rejected.count * 48)
        out.append(contentsOf: #"{"ack":["#.utf8)
        for (i, seq) in acked.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            Self.appendDecimal(seq, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        if !rejected.isEmpty {
            out.append(contentsOf: #","rejected":["#.utf8)
            for (i, r) in rejected.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: #"{"seq":"#.utf8)
                Self.appendDecimal(r.seq, to: &out)
                // Reasons are ASCII identifiers (`RejectReason`): nothing to escape.
                out.append(contentsOf: #","reason":""#.utf8)
                out.append(contentsOf: r.reason.rawValue.utf8)
                out.append(contentsOf: #""}"#.utf8)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Appends `value` in decimal (a leading `-` when negative).
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        out[start...].reverse()
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
