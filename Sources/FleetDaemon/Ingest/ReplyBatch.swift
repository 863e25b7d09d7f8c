import CBatchUDP

/// Replies gathered for one socket's `sendmmsg(2)` calls: the bytes back to
/// back, each reply with its peer's address in a `CBU_ADDR_SLOT`-byte slot.
/// Built without an allocation per reply (the writer sends tens of
/// thousands a second) and reused: `removeAll` keeps the storage.
struct ReplyBatch {
    private(set) var bytes: [UInt8] = []
    private(set) var offsets: [UInt32] = []
    private(set) var lengths: [UInt32] = []
    private(set) var addrs: [UInt8] = []
    private(set) var addrLengths: [UInt32] = []

    /// Replies held.
    var count: Int { offsets.count }
    var isEmpty: Bool { offsets.isEmpty }

    /// Adds a reply to `peer` whose bytes `write` appends to the buffer it is given.
    mutating func append(to peer: PeerAddress, _ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        write(&bytes)
        offsets.append(UInt32(start))
        lengths.append(UInt32(bytes.count - start))
        let slot = Int(CBU_ADDR_SLOT)
        let at = addrs.count
        addrs.append(contentsOf: repeatElement(0, count: slot))
        peer.withSockAddr { a, n in
            addrs.withUnsafeMutableBytes {
                ($0.baseAddress! + at).copyMemory(from: a, byteCount: min(Int(n), slot))
            }
            addrLengths.append(UInt32(n))
        }
    }

    /// Empties the batch, keeping its storage for the next.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        addrs.removeAll(keepingCapacity: true)
        addrLengths.removeAll(keepingCapacity: true)
    }
}
