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

    /// The tables of the array of tables `key` (`[[key]]`; none when
    /// absent). Throws `ConfigError` naming `file` and the line when `key`
    /// holds anything else.
    func tables(_ key: String, file: String) throws(ConfigError) -> [TOMLTable] {
        guard let value = self[key] else { return [] }
        func wrong(_ found: TOMLValue) -> ConfigError {
            ConfigError(
                file: file, line: line(of: key), key: key,
                message: "must be an array of tables ([[\(key)]]), found \(found.typeName)")
        }
        guard case .array(let items) = value else { throw wrong(value) }
        var out: [TOMLTable] = []
        for item in items {
            guard case .table(let t) = item else { throw wrong(item) }
            out.append(t)
        }
        return out
    }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if entries[key] == nil { keys.append(key) }
        entries[key] = (value, line)
    }
}
