/// A JSON value as it stood in a file (RFC 8259): kept for fence properties
/// that fleetd does not interpret, so nothing a user wrote is dropped.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member named `key` of an object (the first, if a file repeats it).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text of the value (numbers in Swift's shortest form).
    public var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
            return "\(n)"
        case .string(let s): return JSONValue.quote(s)
        case .array(let a): return "[" + a.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let o):
            return "{"
                + o.map { JSONValue.quote($0.key) + ":" + $0.value.jsonText }.joined(separator: ",")
                + "}"
        }
    }

    /// `s` as a JSON string literal, escaped per RFC 8259 §7.
    public static func quote(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    /// Appends `s` to `out` as a JSON string literal, escaped per RFC 8259
    /// §7 (no string of its own made on the way).
    public static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        // Most strings (keys, ids, names) need no escape: copied whole.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
            out += s
        } else {
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where u.value < 0x20:
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
