/// Reads the subset of TOML v1.0.0 (https://toml.io/en/v1.0.0) that fleetd's
/// config uses, strictly: tables (`[a]`, `[a.b]`), arrays of tables
/// (`[[a]]`: each header appends a table, and what follows goes into it),
/// bare / quoted / dotted keys, basic and literal strings, integers (with
/// `_`), floats, booleans, arrays (may span lines) and inline tables.
/// Multi-line strings and dates are rejected with a clear error. Redefining
/// a key is an error, as TOML requires.
public struct TOMLParser {
    private let chars: [Character]
    private var i = 0
    private var line = 1
    private let file: String

    /// Parses `text`; `file` labels errors. Throws `ConfigError`.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> TOMLTable {
        var p = TOMLParser(chars: Array(text), file: file)
        return try p.document()
    }

    private init(chars: [Character], file: String) {
        self.chars = chars
        self.file = file
    }

    private func fail(_ message: String) -> ConfigError {
        ConfigError(file: file, line: line, key: nil, message: message)
    }

    private var atEnd: Bool { i >= chars.count }
    private var current: Character? { i < chars.count ? chars[i] : nil }

    private mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" { i += 1 }
    }

    /// Skips spaces, comments and newlines (inside arrays).
    private mutating func skipBlank() {
        while let c = current {
            if c == " " || c == "\t" || c == "\r" {
                i += 1
            } else if c == "\n" {
                i += 1
                line += 1
            } else if c == "#" {
                while let d = current, d != "\n" { i += 1 }
            } else {
                return
            }
        }
    }

    /// After a value or header: only spaces and a comment before the newline.
    private mutating func endOfLine() throws(ConfigError) {
        skipSpaces()
        if current == "#" { while let d = current, d != "\n" { i += 1 } }
        if current == "\r" { i += 1 }
        if let c = current {
            guard c == "\n" else {
                throw fail("unexpected \"\(c)\" after the value (one key = value per line)")
            }
            i += 1
            line += 1
        }
    }

    private mutating func document() throws(ConfigError) -> TOMLTable {
        var root = TOMLTable()
        var path: [String] = []
        var definedTables: Set<[String]> = []
        while true {
            skipBlank()
            guard let c = current else { break }
            if c == "[" {
                i += 1
                if consume("[") {
                    skipSpaces()
                    let keys = try keyPath()
                    skipSpaces()
                    guard consume("]"), consume("]") else {
                        throw fail("expected \"]]\" to close the array-of-tables header")
                    }
                    try appendTable(&root, keys, line: line)
                    // Tables under the new element may be defined again.
                    definedTables = definedTables.filter { !$0.starts(with: keys) }
                    path = keys
                    try endOfLine()
                    continue
                }
                skipSpaces()
                let keys = try keyPath()
                skipSpaces()
                guard current == "]" else { throw fail("expected \"]\" to close the table header") }
                i += 1
                guard !definedTables.contains(keys) else {
                    throw fail("table [\(keys.joined(separator: "."))] is defined twice")
                }
                definedTables.insert(keys)
                try ensureTable(&root, keys, line: line)
                path = keys
                try endOfLine()
            } else {
                let keyLine = line
                let keys = try keyPath()
                skipSpaces()
                guard current == "=" else {
                    throw fail("expected \"=\" after the key \"\(keys.joined(separator: "."))\"")
                }
                i += 1
                skipSpaces()
                let value = try value()
                try insert(&root, path + keys, value, line: keyLine)
                try endOfLine()
            }
        }
        return root
    }

    private mutating func keyPath() throws(ConfigError) -> [String] {
        var keys: [String] = []
        repeat {
            skipSpaces()
            keys.append(try simpleKey())
            skipSpaces()
        } while consume(".")
        return keys
    }

    private mutating func consume(_ c: Character) -> Bool {
        if current == c {
            i += 1
            return true
        }
        return false
    }

    private mutating func simpleKey() throws(ConfigError) -> String {
        if current == "\"" { return try basicString() }
        if current == "'" { return try literalString() }
        var key = ""
        while let c = current, c.isASCII, c.isLetter || c.isNumber || c == "_" || c == "-" {
            key.append(c)
            i += 1
        }
        guard !key.isEmpty else {
            throw fail(
                current.map { "unexpected \"\($0)\" where a key was expected" }
                    ?? "a key was expected")
        }
        return key
    }

    private mutating func value() throws(ConfigError) -> TOMLValue {
        guard let c = current else { throw fail("a value was expected") }
        switch c {
        case "\"":
            if i + 2 < chars.count, chars[i + 1] == "\"", chars[i + 2] == "\"" {
                throw fail("multi-line strings are not used in fleetd's config")
            }
            return .string(try basicString())
        case "'": return .string(try literalString())
        case "[":
            i += 1
            var items: [TOMLValue] = []
            skipBlank()
            while current != "]" {
                items.append(try value())
                skipBlank()
                if consume(",") {
                    skipBlank()
                } else {
                    guard current == "]" else { throw fail("expected \",\" or \"]\" in the array") }
                }
            }
            i += 1
            return .array(items)
        case "{":
            i += 1
            var table = TOMLTable()
            skipSpaces()
            if consume("}") { return .table(table) }
            repeat {
                skipSpaces()
                let keys = try keyPath()
                guard consume("=") else { throw fail("expected \"=\" in the inline table") }
                skipSpaces()
                let v = try value()
                try insert(&table, keys, v, line: line)
                skipSpaces()
            } while consume(",")
            guard consume("}") else { throw fail("expected \",\" or \"}\" in the inline table") }
            return .table(table)
        case "t", "f":
            if match("true") { return .bool(true) }
            if match("false") { return .bool(false) }
            throw fail("unknown value (strings need quotes)")
        default:
            return try number()
        }
    }

    private mutating func match(_ word: String) -> Bool {
        let w = Array(word)
        guard i + w.count <= chars.count, Array(chars[i..<(i + w.count)]) == w else { return false }
        i += w.count
        return true
    }

    private mutating func number() throws(ConfigError) -> TOMLValue {
        var text = ""
        while let c = current, c.isASCII, c.isLetter || c.isNumber || "+-._".contains(c) {
            text.append(c)
            i += 1
        }
        guard !text.isEmpty else { throw fail("a value was expected (strings need quotes)") }
        let digits = text.replacingOccurrences(of: "_", with: "")
        if let v = Int64(digits) { return .integer(v) }
        if digits.hasPrefix("0x"), let v = Int64(digits.dropFirst(2), radix: 16) {
            return .integer(v)
        }
        switch digits {
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let v = Double(digits) {
            return .float(v)
        }
        throw fail("\"\(text)\" is not a valid value (strings need quotes)")
    }

    private mutating func basicString() throws(ConfigError) -> String {
        i += 1
        var s = ""
        while let c = current {
            i += 1
            switch c {
            case "\"": return s
            case "\n": throw fail("string not closed on its line")
            case "\\":
                guard let e = current else { break }
                i += 1
                switch e {
                case "\"": s.append("\"")
                case "\\": s.append("\\")
                case "n": s.append("\n")
                case "t": s.append("\t")
                case "r": s.append("\r")
                case "b": s.append("\u{08}")
                case "f": s.append("\u{0C}")
                case "u", "U":
                    let n = e == "u" ? 4 : 8
                    guard i + n <= chars.count,
                        let v = UInt32(String(chars[i..<(i + n)]), radix: 16),
                        let scalar = Unicode.Scalar(v)
                    else { throw fail("invalid \\\(e) escape") }
                    s.unicodeScalars.append(scalar)
                    i += n
                default: throw fail("invalid escape \\\(e) in string")
                }
            default: s.append(c)
            }
        }
        throw fail("string not closed")
    }

    private mutating func literalString() throws(ConfigError) -> String {
        i += 1
        var s = ""
        while let c = current {
            i += 1
            if c == "'" { return s }
            if c == "\n" { throw fail("string not closed on its line") }
            s.append(c)
        }
        throw fail("string not closed")
    }

    private func ensureTable(_ table: inout TOMLTable, _ keys: [String], line: Int)
        throws(ConfigError)
    {
        guard let first = keys.first else { return }
        try descend(&table, first, line: line) { (child: inout TOMLTable) throws(ConfigError) in
            try ensureTable(&child, Array(keys.dropFirst()), line: line)
        }
    }

    /// `[[keys]]`: appends an empty table to the array at `keys` (made when missing).
    private func appendTable(_ table: inout TOMLTable, _ keys: [String], line: Int)
        throws(ConfigError)
    {
        let first = keys[0]
        if keys.count > 1 {
            try descend(&table, first, line: line) { (child: inout TOMLTable) throws(ConfigError) in
                try appendTable(&child, Array(keys.dropFirst()), line: line)
            }
            return
        }
        switch table[first] {
        case nil:
            table.set(first, .array([.table(TOMLTable())]), line: line)
        case .array(let items)?
        where items.allSatisfy({ if case .table = $0 { true } else { false } }):
            table.set(
                first, .array(items + [.table(TOMLTable())]), line: table.line(of: first) ?? line)
        case let other?:
            throw ConfigError(
                file: file, line: line, key: first,
                message: "is \(other.typeName), not an array of tables")
        }
    }

    /// Runs `body` on the table at `key` (made when missing; for an array
    /// of tables, its last element), and stores it back.
    private func descend(
        _ table: inout TOMLTable, _ key: String, line: Int,
        _ body: (inout TOMLTable) throws(ConfigError) -> Void
    ) throws(ConfigError) {
        switch table[key] {
        case nil:
            var child = TOMLTable()
            try body(&child)
            table.set(key, .table(child), line: line)
        case .table(var child)?:
            try body(&child)
            table.set(key, .table(child), line: table.line(of: key) ?? line)
        case .array(var items)?:
            guard case .table(var child)? = items.last else {
                throw ConfigError(
                    file: file, line: line, key: key, message: "is an array, not a table")
            }
            try body(&child)
            items[items.count - 1] = .table(child)
            table.set(key, .array(items), line: table.line(of: key) ?? line)
        case let other?:
            throw ConfigError(
                file: file, line: line, key: key, message: "is \(other.typeName), not a table")
        }
    }

    private func insert(_ table: inout TOMLTable, _ keys: [String], _ value: TOMLValue, line: Int)
        throws(ConfigError)
    {
        let first = keys[0]
        if keys.count == 1 {
            guard table[first] == nil else {
                throw ConfigError(file: file, line: line, key: first, message: "is defined twice")
            }
            table.set(first, value, line: line)
            return
        }
        try descend(&table, first, line: line) { (child: inout TOMLTable) throws(ConfigError) in
            try insert(&child, Array(keys.dropFirst()), value, line: line)
        }
    }
}
