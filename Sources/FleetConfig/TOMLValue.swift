/// A value read from a TOML file, with the line it came from.
public indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The TOML type name, for error messages.
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .bool: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML table: keys in file order, each with its value and line.
public struct TOMLTable: Sendable, Equatable {
    public private(set) var keys: [String] = []
    public private(set) var entries: [String: (value: TOMLValue, line: Int)] = [:]

    public init() {}

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.keys == b.keys && a.keys.allSatisfy { a.entries[$0]!.value == b.entries[$0]!.value }
    }

    public subscript(key: String) -> TOMLValue? { entries[key]?.value }

    public func line(of key: String) -> Int? { entries[key]?.line }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if entries[key] == nil { keys.append(key) }
        entries[key] = (value, line)
    }
}
