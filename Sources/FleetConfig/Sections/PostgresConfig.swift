/// `[postgresql]`: the shared database when `[storage] backend = "postgresql"`.
/// Read into `PostgresSettings` (FleetPostgres) by the programs that open it.
public struct PostgresConfig: Sendable, Equatable {
    /// libpq's URL form: `postgres://USER@HOST:PORT/DATABASE`.
    public var url = "postgres://fleetd@127.0.0.1:5432/fleetd"
    /// A file whose first line is the password; empty: none (then libpq's
    /// `PGPASSFILE` or `~/.pgpass` is read).
    public var passwordFile = ""
    /// Read connections for the API (each its own session).
    public var poolSize = 4
    /// `statement_timeout` of every session, in ms; 0: none.
    public var statementTimeoutMs = 30_000

    public init() {}

    /// `url` with any password in it replaced by `***`, for messages.
    public static func redacted(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"),
            let scheme = url.range(of: "://"), scheme.upperBound < at
        else { return url }
        let userInfo = url[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        url = try s.string("url", default: url)
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw s.error("url", "must be a postgres://USER@HOST:PORT/DATABASE URL")
        }
        passwordFile = try s.string("password_file", default: passwordFile)
        poolSize = try s.int("pool_size", default: poolSize, range: 1...64)
        statementTimeoutMs = try s.int(
            "statement_timeout_ms", default: statementTimeoutMs, range: 0...3_600_000)
    }
}
