/// The two 16-bit CRCs the TCP tracker protocols check (parameters as the
/// CRC catalogue names them; `docs/protocols.md`, "TCP").
public enum CRC16 {
    /// CRC-16/ARC ("IBM"): reflected polynomial 0x8005 (0xA001), initial 0,
    /// no final xor; check value 0xBB3D for "123456789". Teltonika frames
    /// carry it over codec id … second record count (Teltonika, "Codec").
    public static func ibm(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    /// CRC-16/X-25 ("CRC-ITU" in the GT06 documents): reflected polynomial
    /// 0x1021 (0x8408), initial 0xFFFF, final xor 0xFFFF; check value
    /// 0x906E for "123456789". GT06 frames carry it over length … serial.
    public static func x25(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
        }
        return ~crc
    }

    /// A CRC as log lines show it: at least 4 hex digits.
    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    public static func ibm(_ bytes: [UInt8]) -> UInt16 { bytes.withUnsafeBufferPointer { ibm($0) } }
    public static func x25(_ bytes: [UInt8]) -> UInt16 { bytes.withUnsafeBufferPointer { x25($0) } }
}
