/// A config file that cannot be used: where, which key, and what is wrong.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// 1-based line, when known.
    public let line: Int?
    /// The full dotted key (`listen.json`), when the problem is a key's.
    public let key: String?
    public let message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        s += ": "
        if let key { s += "\(key): " }
        return s + message
    }
}
