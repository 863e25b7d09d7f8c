/// The bytes a sender is owed once its fixes are committed, whatever the
/// protocol. Replies of up to 24 bytes (Teltonika's 7-byte acknowledgement,
/// JSON's `{"ack":[seq]}` for a seq of up to 14 digits) are held inline, so
/// the tens of thousands a second the writer sends cost no allocation each,
/// and a reply waiting in the inbound queue costs no block of its own;
/// longer ones (several seqs, rejections) hold an array. 26 bytes either way.
public struct WireReply: Sendable, Equatable {
    private enum Storage: Equatable {
        /// Three little-endian words of bytes, and how many are used.
        case inline(UInt64, UInt64, UInt64, UInt8)
        case heap([UInt8])
    }
    private var storage: Storage

    /// The most bytes held inline.
    public static let inlineMax = 24

    /// A reply of `bytes`.
    public init(_ bytes: [UInt8]) {
        if bytes.count <= Self.inlineMax {
            self.init(inline: bytes.count) { i in bytes[i] }
        } else {
            self.init(storage: .heap(bytes))
        }
    }

    private init(storage: Storage) { self.storage = storage }

    /// A reply of `count` (≤ 24) bytes, byte i given by `byte(i)`.
    public init(inline count: Int, _ byte: (Int) -> UInt8) {
        precondition(count <= Self.inlineMax, "an inline reply holds at most 24 bytes")
        var w: (UInt64, UInt64, UInt64) = (0, 0, 0)
        for i in 0..<count {
            let b = UInt64(byte(i)) << (8 * UInt64(i & 7))
            switch i >> 3 {
            case 0: w.0 |= b
            case 1: w.1 |= b
            default: w.2 |= b
            }
        }
        self.init(storage: .inline(w.0, w.1, w.2, UInt8(count)))
    }

    /// Length in bytes.
    public var count: Int {
        switch storage {
        case .inline(_, _, _, let n): Int(n)
        case .heap(let bytes): bytes.count
        }
    }

    /// Appends the reply's bytes to `out`.
    @inline(__always)
    public func write(into out: inout [UInt8]) {
        switch storage {
        case .heap(let bytes):
            out.append(contentsOf: bytes)
        case .inline(let w0, let w1, let w2, let n):
            for i in 0..<Int(n) {
                let word = i < 8 ? w0 : i < 16 ? w1 : w2
                out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i & 7))))
            }
        }
    }

    /// The bytes, as an array (tests, tools).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }
}
