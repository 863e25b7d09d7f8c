/// A JSON value inside `Codable` types: members fleetd passes through
/// without interpreting (alert details, Teltonika I/O elements).
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: JSONKey.self) {
            self = .object(
                try object.allKeys.map {
                    ($0.stringValue, try object.decode(JSONValue.self, forKey: $0))
                }
                .sorted { $0.0 < $1.0 })
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? single.decode(Double.self) {
            self = .number(n)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if n == n.rounded(), abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for v in items { try c.encode(v) }
        case .object(let members):
            var c = encoder.container(keyedBy: JSONKey.self)
            for (k, v) in members { try c.encode(v, forKey: JSONKey(k)) }
        }
    }
}

/// A coding key of any name: for objects whose members are not known
/// in advance (a JSON object passed through, an alert's details).
public struct JSONKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
