/// Reads one table of the config: typed getters that name the key on error,
/// and a final check that no unknown key was left.
struct ConfigSection {
    let table: TOMLTable
    let name: String
    let file: String
    private var used: Set<String> = []

    init(_ root: TOMLTable, _ name: String, file: String) throws(ConfigError) {
        self.name = name
        self.file = file
        switch root[name] {
        case nil: table = TOMLTable()
        case .table(let t)?: table = t
        case let other?:
            throw ConfigError(
                file: file, line: root.line(of: name), key: name,
                message: "must be a table, found \(other.typeName)")
        }
    }

    /// One table of an array of tables (`[[name]]`), as the section `name`.
    init(element table: TOMLTable, _ name: String, file: String) {
        self.table = table
        self.name = name
        self.file = file
    }

    func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: table.line(of: key), key: "\(name).\(key)", message: message)
    }

    mutating func value(_ key: String) -> TOMLValue? {
        used.insert(key)
        return table[key]
    }

    mutating func string(_ key: String, default d: String) throws(ConfigError) -> String {
        switch value(key) {
        case nil: return d
        case .string(let s)?: return s
        case let v?: throw error(key, "must be a string, found \(v.typeName)")
        }
    }

    mutating func int(_ key: String, default d: Int, range: ClosedRange<Int>) throws(ConfigError)
        -> Int
    {
        switch value(key) {
        case nil: return d
        case .integer(let v)?:
            guard range.contains(Int(v)) else {
                throw error(key, "must be \(range.lowerBound)…\(range.upperBound), found \(v)")
            }
            return Int(v)
        case let v?: throw error(key, "must be an integer, found \(v.typeName)")
        }
    }

    mutating func double(_ key: String, default d: Double, range: ClosedRange<Double>)
        throws(ConfigError) -> Double
    {
        let v: Double
        switch value(key) {
        case nil: return d
        case .integer(let i)?: v = Double(i)
        case .float(let f)?: v = f
        case let other?: throw error(key, "must be a number, found \(other.typeName)")
        }
        guard range.contains(v) else {
            throw error(key, "must be \(range.lowerBound)…\(range.upperBound), found \(v)")
        }
        return v
    }

    mutating func bool(_ key: String, default d: Bool) throws(ConfigError) -> Bool {
        switch value(key) {
        case nil: return d
        case .bool(let b)?: return b
        case let v?: throw error(key, "must be true or false, found \(v.typeName)")
        }
    }

    /// A list of strings; absent means empty.
    mutating func strings(_ key: String) throws(ConfigError) -> [String] {
        switch value(key) {
        case nil: return []
        case .array(let items)?:
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else {
                    throw error(key, "must be a list of strings, found \(item.typeName) in it")
                }
                out.append(s)
            }
            return out
        case let v?: throw error(key, "must be a list of strings, found \(v.typeName)")
        }
    }

    /// An optional listen address: absent or "" means off.
    mutating func address(_ key: String, default d: ListenAddress?) throws(ConfigError)
        -> ListenAddress?
    {
        guard case .some = table[key] else {
            _ = value(key)
            return d
        }
        let text = try string(key, default: "")
        if text.isEmpty { return nil }
        switch ListenAddress.parse(text) {
        case .success(let a): return a
        case .failure(let p): throw error(key, p.message)
        }
    }

    /// Throws for the first key this section does not know.
    func finish() throws(ConfigError) {
        for key in table.keys where !used.contains(key) {
            throw error(key, "unknown key")
        }
    }
}
