/// The bytes a sender is owed once its fixes are committed, whatever the
/// protocol. Replies of up to 16 bytes (Teltonika's 7-byte acknowledgement)
/// are held inline, so the tens of thousands a second the writer sends cost
/// no allocation each; longer ones (JSON's `{"ack":[…]}`) hold an array.
public struct WireReply: Sendable, Equatable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private var inlineCount: UInt8 = 0
    private var heap: [UInt8]? = nil

    /// A reply of `bytes`.
    public init(_ bytes: [UInt8]) {
        if bytes.count <= 16 {
            self.init(inline: bytes.count) { i in bytes[i] }
        } else {
            self.init(heap: bytes)
        }
    }

    private init(heap: [UInt8]) { self.heap = heap }

    /// A reply of `count` (≤ 16) bytes, byte i given by `byte(i)`.
    public init(inline count: Int, _ byte: (Int) -> UInt8) {
        precondition(count <= 16, "an inline reply holds at most 16 bytes")
        inlineCount = UInt8(count)
        for i in 0..<count {
            let b = UInt64(byte(i))
            if i < 8 { low |= b << (8 * UInt64(i)) } else { high |= b << (8 * UInt64(i - 8)) }
        }
    }

    /// Length in bytes.
    public var count: Int { heap?.count ?? Int(inlineCount) }

    /// Appends the reply's bytes to `out`.
    @inline(__always)
    public func write(into out: inout [UInt8]) {
        if let heap {
            out.append(contentsOf: heap)
            return
        }
        for i in 0..<Int(inlineCount) {
            let word = i < 8 ? low : high
            out.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i & 7))))
        }
    }

    /// The bytes, as an array (tests, tools).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }
}
