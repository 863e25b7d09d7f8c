import FleetGeo
import FleetJSON

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

    /// Appends `"key":value` as JSON (RFC 8259) to `out`: integral numbers
    /// without a fraction, others with at most three decimals; text escaped.
    func write(to out: inout String) {
        JSONValue.appendQuoted(key, to: &out)
        out += ":"
        switch value {
        case .number(let d):
            let r = (d * 1000).rounded() / 1000
            out += r == r.rounded() && abs(r) < 1e15 ? String(Int64(r)) : String(r)
        case .text(let s): JSONValue.appendQuoted(s, to: &out)
        }
    }
}
