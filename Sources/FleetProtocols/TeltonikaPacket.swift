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
        [0x00, 0x05, UInt8(packetId >> 8), UInt8(packetId & 0xFF), 0x01, avlPacketId, accepted]
    }
}
