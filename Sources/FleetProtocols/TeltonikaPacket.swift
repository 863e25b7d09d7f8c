import FleetModel

/// A decoded Teltonika UDP datagram.
public struct TeltonikaPacket: Sendable, Equatable {
    /// The UDP channel's packet id (echoed in the reply).
    public var packetId: UInt16
    /// The AVL packet id (echoed in the reply; devices match on it).
    public var avlPacketId: UInt8
    public var imei: String
    /// 0x08, 0x8E or 0x10.
    public var codec: UInt8
    /// One fix per AVL record, in packet order.
    public var fixes: [Fix]

    /// The 7-byte acknowledgement the device expects once `accepted` records
    /// are safe: length 5, packet id, 0x01, AVL packet id, count.
    public static func reply(packetId: UInt16, avlPacketId: UInt8, accepted: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        appendReply(to: &out, packetId: packetId, avlPacketId: avlPacketId, accepted: accepted)
        return out
    }

    /// Appends the bytes `reply` returns to `out`.
    public static func appendReply(
        to out: inout [UInt8], packetId: UInt16, avlPacketId: UInt8, accepted: UInt8
    ) {
        out.append(0x00)
        out.append(0x05)
        out.append(UInt8(packetId >> 8))
        out.append(UInt8(packetId & 0xFF))
        out.append(0x01)
        out.append(avlPacketId)
        out.append(accepted)
    }
}
