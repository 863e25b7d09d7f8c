/// `application/x-www-form-urlencoded` and URL query strings (WHATWG URL
/// standard, "application/x-www-form-urlencoded parsing"): `&`-separated
/// `name=value` pairs, `+` for space, `%XX` escapes; order and repeats kept.
public enum FormEncoding {
    /// The pairs of `text`. A malformed escape (`%` not followed by two hex
    /// digits) is kept literally, as browsers do; bytes that are not UTF-8
    /// become U+FFFD.
    public static func pairs(_ text: some StringProtocol) -> [(name: String, value: String)] {
        var out: [(String, String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: "=") {
                out.append((decode(part[..<eq]), decode(part[part.index(after: eq)...])))
            } else {
                out.append((decode(part), ""))
            }
        }
        return out
    }

    /// One percent-encoded component, `+` read as space.
    public static func decode(_ s: some StringProtocol) -> String {
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%"), i + 2 < bytes.count, let h = hex(bytes[i + 1]),
                let l = hex(bytes[i + 2])
            {
                out.append(h << 4 | l)
                i += 2
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
