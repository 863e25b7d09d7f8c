import FleetModel

/// What a `WireFormat` made of one datagram.
public struct WireDecoding: Sendable, Equatable {
    /// The fixes decoded, in datagram order (not yet screened).
    public var fixes: [Fix]
    /// Per fix (parallel to `fixes`), the sender's token for it, when its
    /// replies name fixes (JSON's `seq`); empty for other formats.
    public var tokens: [Int64?]
    /// Per fix, the 0-based item (line, record) it came from; empty when
    /// fix i is item i.
    public var items: [Int]
    /// Items the decoder refused, each with its reason (counted and logged;
    /// a refusal that carries a `seq` is named in JSON's reply).
    public var rejections: [Rejection]
    /// Set when the whole datagram is refused: nothing is taken and nothing
    /// is answered (a device resends).
    public var refusal: Rejection?
    /// The reply owed once every fix above is committed (nil: none). When
    /// some are refused later the door asks the format again
    /// (`WireFormat.reply(to:refused:)`).
    public var reply: WireReply?
    /// The size of what was received, bytes: a reply is never larger (a
    /// spoofed source must not be able to use fleetd as an amplifier).
    public var receivedBytes = Int.max

    public init(
        fixes: [Fix] = [], tokens: [Int64?] = [], items: [Int] = [], rejections: [Rejection] = [],
        refusal: Rejection? = nil, reply: WireReply? = nil
    ) {
        self.fixes = fixes
        self.tokens = tokens
        self.items = items
        self.rejections = rejections
        self.refusal = refusal
        self.reply = reply
    }

    /// A datagram refused whole.
    public static func refused(_ reason: RejectReason, _ detail: String) -> WireDecoding {
        WireDecoding(refusal: Rejection(reason, detail))
    }

    /// The 0-based item fix `index` came from.
    public func item(of index: Int) -> Int { items.isEmpty ? index : items[index] }
}
