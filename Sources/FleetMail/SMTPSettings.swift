/// How fleetd reaches its mail server (`[smtp]`).
public struct SMTPSettings: Sendable, Equatable {
    /// How the connection is protected.
    public enum TLS: String, Sendable, CaseIterable {
        /// Plain TCP, then `STARTTLS` (RFC 3207), required: a server that
        /// does not offer it is not sent anything.
        case starttls
        /// TLS from the first byte ("implicit TLS", RFC 8314 §3, port 465).
        case tls
        /// No TLS: only for a relay on this machine (a password is sent
        /// only to a loopback address then).
        case off
    }

    public var host: String
    public var port: Int
    /// The envelope and `From` address.
    public var from: String
    /// Empty: no `AUTH`.
    public var username: String
    public var password: String
    public var tls: TLS
    /// How long any one reply may take, seconds.
    public var timeoutS: Double
    /// PEM file of the certificates to trust instead of the system's; empty: the system's.
    public var caFile: String
    /// The name fleetd gives in `EHLO`.
    public var heloName: String

    public init(
        host: String, port: Int, from: String, username: String = "", password: String = "",
        tls: TLS = .starttls, timeoutS: Double = 30, caFile: String = "",
        heloName: String = "localhost"
    ) {
        self.host = host
        self.port = port
        self.from = from
        self.username = username
        self.password = password
        self.tls = tls
        self.timeoutS = timeoutS
        self.caFile = caFile
        self.heloName = heloName
    }

    /// `host:port` for messages.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A failed exchange with the mail server. `permanent` when the server
/// refused the mail itself (a 5xx reply to `MAIL`, every `RCPT` or the
/// data); anything else (4xx, a lost connection, a timeout, TLS, a refused
/// login) is worth trying again later.
public struct SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var permanent: Bool

    public init(_ message: String, permanent: Bool = false) {
        self.message = message
        self.permanent = permanent
    }

    public var description: String { message }
}
