/// Builds Teltonika UDP datagrams (Codec 8, 8E, 16): what devices send.
/// Used by the simulator, the load generator and the tests.
public enum TeltonikaEncoder {
    /// One AVL record to encode.
    public struct Record: Sendable {
        public var time: Int64
        public var lat: Double
        public var lon: Double
        public var altM: Int16 = 0
        public var angle: UInt16 = 0
        public var sats: UInt8 = 9
        public var speedKmh: UInt16 = 0
        public var priority: UInt8 = 0
        /// IO elements as (id, byte width 1/2/4/8, value).
        public var io: [(id: UInt16, width: Int, value: UInt64)] = []
        /// Codec 8E variable-length elements.
        public var nx: [(id: UInt16, bytes: [UInt8])] = []

        public init(time: Int64, lat: Double, lon: Double) {
            self.time = time
            self.lat = lat
            self.lon = lon
        }
    }

    public static func udp(
        packetId: UInt16 = 0xCAFE, avlPacketId: UInt8, imei: String, codec: UInt8 = 0x08,
        records: [Record]
    ) -> [UInt8] {
        var out: [UInt8] = []
        appendUDP(
            to: &out, packetId: packetId, avlPacketId: avlPacketId, imei: imei, codec: codec,
            records: records)
        return out
    }

    /// Appends the datagram `udp` builds to `out`, with no allocation of
    /// its own (the load generator encodes tens of thousands a second).
    public static func appendUDP(
        to out: inout [UInt8], packetId: UInt16 = 0xCAFE, avlPacketId: UInt8, imei: String,
        codec: UInt8 = 0x08, records: [Record]
    ) {
        let lengthAt = out.count
        out.append(0)
        out.append(0)
        func put(_ v: UInt64, _ n: Int) {
            var k = n
            while k > 0 {
                k -= 1
                out.append(UInt8(truncatingIfNeeded: v >> (8 * k)))
            }
        }
        put(UInt64(packetId), 2)
        out.append(0x01)
        out.append(avlPacketId)
        put(UInt64(imei.utf8.count), 2)
        out.append(contentsOf: imei.utf8)
        appendData(to: &out, codec: codec, records: records)
        let length = out.count - lengthAt - 2
        out[lengthAt] = UInt8(truncatingIfNeeded: length >> 8)
        out[lengthAt + 1] = UInt8(truncatingIfNeeded: length)
    }

    /// Appends the AVL data (codec id, count, records, count), what a UDP
    /// packet carries after its IMEI and a TCP frame between its length and CRC.
    static func appendData(to out: inout [UInt8], codec: UInt8, records: [Record]) {
        func put(_ v: UInt64, _ n: Int) {
            var k = n
            while k > 0 {
                k -= 1
                out.append(UInt8(truncatingIfNeeded: v >> (8 * k)))
            }
        }
        out.append(codec)
        out.append(UInt8(truncatingIfNeeded: records.count))
        let wide = codec != 0x08
        let countWidth = codec == 0x8E ? 2 : 1
        for r in records {
            put(UInt64(bitPattern: r.time), 8)
            out.append(r.priority)
            put(UInt64(UInt32(bitPattern: Int32((r.lon * 10_000_000).rounded()))), 4)
            put(UInt64(UInt32(bitPattern: Int32((r.lat * 10_000_000).rounded()))), 4)
            put(UInt64(UInt16(bitPattern: r.altM)), 2)
            put(UInt64(r.angle), 2)
            out.append(r.sats)
            put(UInt64(r.speedKmh), 2)
            put(0, wide ? 2 : 1)  // event IO id
            if codec == 0x10 { out.append(7) }  // generation type: periodical
            put(UInt64(r.io.count + (codec == 0x8E ? r.nx.count : 0)), countWidth)
            var width = 1
            while width <= 8 {  // the groups of 1, 2, 4 and 8-byte elements
                put(UInt64(r.io.count { $0.width == width }), countWidth)
                for e in r.io where e.width == width {
                    put(UInt64(e.id), wide ? 2 : 1)
                    put(e.value, width)
                }
                width *= 2
            }
            if codec == 0x8E {
                put(UInt64(r.nx.count), 2)
                for e in r.nx {
                    put(UInt64(e.id), 2)
                    put(UInt64(e.bytes.count), 2)
                    out.append(contentsOf: e.bytes)
                }
            }
        }
        out.append(UInt8(truncatingIfNeeded: records.count))
    }
}

extension TeltonikaEncoder {
    /// The IMEI message that opens a TCP session: 2-byte length, ASCII digits.
    public static func handshake(imei: String) -> [UInt8] {
        let digits = Array(imei.utf8)
        return [
            UInt8(truncatingIfNeeded: digits.count >> 8), UInt8(truncatingIfNeeded: digits.count),
        ]
            + digits
    }

    /// One AVL data frame as a device sends it over TCP: `00000000`, data
    /// length, codec … second count, CRC-16/IBM.
    public static func tcp(codec: UInt8 = 0x08, records: [Record]) -> [UInt8] {
        var data: [UInt8] = []
        appendData(to: &data, codec: codec, records: records)
        return [0, 0, 0, 0] + be32(UInt32(data.count)) + data + be32(UInt32(CRC16.ibm(data)))
    }
}
