import FleetStorage
import Foundation

/// Where the PostgreSQL database is and how fleetd talks to it: `[postgresql]`
/// in fleetd.toml, or `fleetctl --postgres URL`.
///
/// The URL is libpq's form, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
/// (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
/// A password in the URL works but is discouraged: it shows in `ps` and in
/// the config file. The password comes first from `passwordFile` (its first
/// line), else from the URL, else from the password file libpq reads
/// (`PGPASSFILE`, or `~/.pgpass`; https://www.postgresql.org/docs/15/libpq-pgpass.html).
public struct PostgresSettings: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 5432
    public var user = "fleetd"
    public var database = "fleetd"
    /// Never printed: `location` leaves it out.
    public var password: String?
    /// Read connections the daemon keeps for the API (at least 1).
    public var poolSize = 4
    /// A statement running longer than this is cancelled by the server
    /// (`statement_timeout`), in ms; 0 lets statements run.
    public var statementTimeoutMs = 30_000
    /// How long a connection attempt may take, in ms.
    public var connectTimeoutMs = 5_000
    /// `synchronous_commit` for the writer's sessions (see `SynchronousMode.postgres`).
    public var synchronousCommit = "local"
    /// TLS to the server (the URL's `sslmode`, libpq's meanings:
    /// https://www.postgresql.org/docs/15/libpq-ssl.html#LIBPQ-SSL-PROTECTION).
    public var sslMode = SSLMode.disable
    /// The CA certificates (PEM) a server's certificate must chain to (the
    /// URL's `sslrootcert`); nil: the system's trust store for
    /// `verify-ca` / `verify-full`, none checked for `require`.
    public var sslRootCert: String?

    /// How fleetd talks TLS to PostgreSQL. fleetd's default is `disable`
    /// (libpq's is `prefer`, which a man in the middle defeats as easily):
    /// across a network, use `verify-full`.
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS; the certificate is not checked (unless `sslrootcert` is
        /// given: then as `verify-ca`, as libpq does).
        case require
        /// TLS; the certificate must chain to a trusted CA.
        case verifyCA = "verify-ca"
        /// TLS; the certificate must chain to a trusted CA and name the host.
        case verifyFull = "verify-full"
    }

    public init() {}

    /// A problem with the URL or the password file, naming it.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Reads `url` (libpq form, `postgres://` or `postgresql://`).
    /// Throws `Problem` naming what is wrong.
    public init(url: String) throws(Problem) {
        guard let c = URLComponents(string: url),
            let scheme = c.scheme, scheme == "postgres" || scheme == "postgresql"
        else {
            throw Problem(
                "\"\(Self.redacted(url))\" is not a postgres://USER@HOST:PORT/DATABASE URL")
        }
        if let h = c.host, !h.isEmpty { host = h }
        if let p = c.port {
            guard (1...65_535).contains(p) else { throw Problem("port \(p) is out of range") }
            port = p
        }
        if let u = c.user, !u.isEmpty { user = u.removingPercentEncoding ?? u }
        if let pw = c.password, !pw.isEmpty { password = pw.removingPercentEncoding ?? pw }
        let path = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
        if !path.isEmpty { database = path.removingPercentEncoding ?? path }
        for item in c.queryItems ?? [] {
            switch item.name {
            case "connect_timeout":
                guard let s = item.value.flatMap(Int.init), s > 0 else {
                    throw Problem("connect_timeout must be a whole number of seconds > 0")
                }
                connectTimeoutMs = s * 1000
            case "sslmode":
                guard let m = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw Problem(
                        "sslmode \"\(item.value ?? "")\" is not supported (disable, require, verify-ca or verify-full)"
                    )
                }
                sslMode = m
            case "sslrootcert":
                guard let path = item.value, !path.isEmpty else {
                    throw Problem("sslrootcert must name a file of CA certificates (PEM)")
                }
                sslRootCert = path
            default:
                throw Problem(
                    "URL parameter \"\(item.name)\" is not supported (connect_timeout, sslmode, sslrootcert)"
                )
            }
        }
        if sslMode == .verifyFull,
            host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." })
        {
            throw Problem(
                "sslmode=verify-full checks the host's name against the server's certificate: write the host as the certificate names it, not the address \(host) (or use verify-ca)"
            )
        }
    }

    /// Settings from `[postgresql]`'s keys: the URL, then the password from
    /// `passwordFile` (when not empty) or libpq's password file. Throws
    /// `Problem` naming the bad URL or unreadable file.
    public init(url: String, passwordFile: String, poolSize: Int, statementTimeoutMs: Int)
        throws(Problem)
    {
        try self.init(url: url)
        self.poolSize = max(poolSize, 1)
        self.statementTimeoutMs = statementTimeoutMs
        if !passwordFile.isEmpty { try readPassword(file: passwordFile) }
        readPassFileIfNeeded()
    }

    /// `postgres://user@host:port/database`: the URL without its password, for logs.
    public var location: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// `url` with any password replaced by `***`.
    public static func redacted(_ url: String) -> String {
        guard var c = URLComponents(string: url), c.password != nil else { return url }
        c.password = "***"
        return c.string ?? "postgres://***"
    }

    /// Reads the password from `file` (its first line, without the newline).
    /// Throws `Problem` naming the file when it cannot be read or is empty.
    public mutating func readPassword(file: String) throws(Problem) {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw Problem("password_file \(file): cannot be read")
        }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        guard !line.isEmpty else { throw Problem("password_file \(file): is empty") }
        password = String(line)
    }

    /// When no password is set: `PGPASSWORD` when set, else the one the libpq password file
    /// (`PGPASSFILE`, or `~/.pgpass`) gives for this host, port, database
    /// and user: the first line whose fields match (`*` matches anything;
    /// `\:` and `\\` are escapes).
    public mutating func readPassFileIfNeeded(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        guard password == nil else { return }
        if let p = environment["PGPASSWORD"], !p.isEmpty {
            password = p
            return
        }
        let file =
            environment["PGPASSFILE"]
            ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            return
        }
        let want = [host, String(port), database, user]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = Self.passFields(String(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), want).allSatisfy({ $0 == "*" || $0 == $1 }) {
                password = fields[4]
                return
            }
        }
    }

    /// A `.pgpass` line split at its unescaped colons, escapes removed.
    static func passFields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for ch in line {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        fields.append(current)
        return fields
    }
}

extension SynchronousMode {
    /// The `synchronous_commit` that gives a PostgreSQL commit the
    /// durability this mode gives a SQLite one
    /// (https://www.postgresql.org/docs/15/runtime-config-wal.html#GUC-SYNCHRONOUS-COMMIT):
    /// OFF → `off` (a server crash may lose the last commits, up to three
    /// `wal_writer_delay`s); NORMAL → `local` (flushed to the server's own
    /// disk before the commit returns, not waiting for standbys); FULL →
    /// `on` (and flushed on a synchronous standby when there is one);
    /// EXTRA → `remote_apply` (and applied there).
    public var postgres: String {
        switch self {
        case .off: "off"
        case .normal: "local"
        case .full: "on"
        case .extra: "remote_apply"
        }
    }
}
