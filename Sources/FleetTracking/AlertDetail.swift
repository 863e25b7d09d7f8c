/// One entry of an alert's details (stored as a JSON object member).
public struct AlertDetail: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case number(Double)
        case text(String)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Double) {
        self.key = key
        self.value = .number(value)
    }

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = .text(value)
    }

    /// `"key":value` as JSON (RFC 8259): integral numbers without a
    /// fraction, others with at most three decimals; text escaped.
    var json: String {
        let v: String
        switch value {
        case .number(let d):
            let r = (d * 1000).rounded() / 1000
            v = r == r.rounded() && abs(r) < 1e15 ? String(Int64(r)) : String(r)
        case .text(let s): v = Self.quote(s)
        }
        return Self.quote(key) + ":" + v
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
