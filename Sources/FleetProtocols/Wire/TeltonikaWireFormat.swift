import FleetModel

/// Teltonika AVL packets over UDP (Codec 8, 8 Extended, 16;
/// `TeltonikaDecoder`), acknowledged with the 7-byte reply that names the
/// packet and how many records are safe.
///
/// A packet is acknowledged in full once its records are committed, also
/// when some were screened out (resending would not make them valid); a
/// packet from an unregistered device, or one that cannot be read, is not
/// answered at all, so the device resends it (taken once it is registered).
public final class TeltonikaWireFormat: WireFormat {
    public let trackerProtocol = TrackerProtocol.teltonika

    public init() {}

    public func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding {
        switch TeltonikaDecoder.decode(bytes) {
        case .failure(let f):
            return .refused(f.reason, f.detail)
        case .success(let packet):
            // The decoder's array is handed on as it is (no copy).
            var d = WireDecoding(fixes: packet.fixes)
            let ack = (packet.packetId, packet.avlPacketId, UInt8(packet.fixes.count))
            d.reply = WireReply(inline: 7) { i in
                switch i {
                case 0: 0x00
                case 1: 0x05
                case 2: UInt8(ack.0 >> 8)
                case 3: UInt8(ack.0 & 0xFF)
                case 4: 0x01
                case 5: ack.1
                default: ack.2
                }
            }
            return d
        }
    }

    public func reply(to d: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?
    {
        refused.contains { $0.reason == .unknownDevice } ? nil : d.reply
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        "IMEI \(d.fixes[index].device) record \(index)"
    }
}
