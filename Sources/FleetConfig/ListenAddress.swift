import Glibc

/// A `host:port` to listen on (`[v6]:port` for IPv6 literals).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`; nil with a reason when malformed.
    public static func parse(_ text: String) -> Result<ListenAddress, ConfigProblem> {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"),
                text[text.index(after: close)...].hasPrefix(":")
            else {
                return .failure(ConfigProblem("\"\(text)\" is not [ipv6]:port"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                return .failure(ConfigProblem("\"\(text)\" is not host:port"))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(" ") else {
            return .failure(ConfigProblem("\"\(text)\" has no host"))
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            return .failure(ConfigProblem("\"\(text)\": port must be 0…65535"))
        }
        return .success(ListenAddress(host: String(host), port: port))
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A reason a config value is unusable, before it is tied to a key.
public struct ConfigProblem: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

extension ListenAddress {
    /// Resolves the address for binding (`getaddrinfo(3)`, passive, numeric
    /// port) as `socketType` (`SOCK_DGRAM`, `SOCK_STREAM`) and calls `body`
    /// with the first result. Throws `StartupError` when it does not resolve.
    public func resolved<T>(_ socketType: Int32, _ body: (UnsafePointer<addrinfo>) throws -> T)
        throws -> T
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = socketType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let info = list else {
            throw StartupError("cannot resolve \(self): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        return try body(info)
    }
}
