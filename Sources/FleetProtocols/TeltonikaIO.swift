/// The IO element section of a Teltonika AVL record (Codec 8, 8E, 16).
public enum TeltonikaIO {
    /// Walks one record's IO section, calling `element` with each id and
    /// value of up to 8 bytes, and `variable` (when given) with each of Codec
    /// 8E's NX elements. Returns nil when the counts agree, else what
    /// disagrees; throws where the bytes end.
    static func walk(
        _ r: inout ByteReader, codec: UInt8, index: Int, _ element: (Int, UInt64) -> Void,
        variable: ((Int, UnsafeBufferPointer<UInt8>) -> Void)? = nil
    ) -> Result<String?, ByteReader.End> {
        do throws(ByteReader.End) {
            let extended = codec == 0x8E
            if extended || codec == 0x10 {
                _ = try r.u16("record \(index) event IO id")
            } else {
                _ = try r.u8("record \(index) event IO id")
            }
            if codec == 0x10 { _ = try r.u8("record \(index) generation type") }
            let total =
                extended
                ? Int(try r.u16("record \(index) IO count"))
                : Int(try r.u8("record \(index) IO count"))
            var seen = 0
            for width in [1, 2, 4, 8] {
                let n =
                    extended
                    ? Int(try r.u16("record \(index) N\(width)"))
                    : Int(try r.u8("record \(index) N\(width)"))
                for _ in 0..<n {
                    let id =
                        codec == 0x08
                        ? Int(try r.u8("record \(index) IO id"))
                        : Int(try r.u16("record \(index) IO id"))
                    element(id, try r.unsigned(width, "record \(index) IO \(id) value"))
                }
                seen += n
            }
            if extended {
                let nx = Int(try r.u16("record \(index) NX"))
                for _ in 0..<nx {
                    let id = Int(try r.u16("record \(index) IO id"))
                    let len = Int(try r.u16("record \(index) IO \(id) length"))
                    let value = try r.bytes(len, "record \(index) IO \(id) value")
                    variable?(id, value)
                }
                seen += nx
            }
            return .success(
                seen == total ? nil : "record \(index): IO total \(total) but \(seen) elements")
        } catch {
            return .failure(error)
        }
    }

    /// The IO section as a JSON object text: {"239":1,"66":12345,…}; values of
    /// up to 8 bytes as unsigned integers, longer ones (8E's NX) as hex strings.
    public static func json(_ raw: [UInt8], codec: UInt8) -> String {
        raw.withUnsafeBufferPointer { b in
            var r = ByteReader(b)
            var parts: [String] = []
            _ = walk(
                &r, codec: codec, index: 0, { id, value in parts.append("\"\(id)\":\(value)") },
                variable: { id, bytes in
                    let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                    parts.append("\"\(id)\":\"\(hex)\"")
                })
            return "{" + parts.joined(separator: ",") + "}"
        }
    }
}
