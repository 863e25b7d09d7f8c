import FleetConfig
import FleetPostgres
import FleetSQLite
import FleetStorage
import FleetTracking

/// Where the data is, and the one place that opens it: an SQLite file or a
/// PostgreSQL database, as `[storage] backend` (or fleetctl's `--db` /
/// `--postgres`) names it. fleetd opens its writer here, fleetctl its
/// reader and administration; a new backend is one more case here and one
/// implementation of the store protocols (`docs/architecture.md`).
public enum Backend: Sendable {
    /// An SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database (its password already read).
    case postgresql(PostgresSettings)

    /// The backend the config names: `[storage] database` for SQLite, or
    /// `[postgresql]` (its `password_file` read). Throws `BackendProblem`
    /// naming the section when the PostgreSQL settings are wrong.
    public init(config c: DaemonConfig) throws(BackendProblem) {
        switch c.storage.backend {
        case .sqlite:
            self = .sqlite(path: c.storage.database)
        case .postgresql:
            do {
                self = .postgresql(
                    try PostgresSettings(
                        url: c.postgresql.url, passwordFile: c.postgresql.passwordFile,
                        poolSize: c.postgresql.poolSize,
                        statementTimeoutMs: c.postgresql.statementTimeoutMs))
            } catch {
                throw BackendProblem(description: "postgresql: \(error)")
            }
        }
    }

    /// fleetd's writer for `c`: the backend it names, with `[storage]
    /// synchronous` (PostgreSQL's `synchronous_commit`), the cluster node
    /// and lease (`[cluster]`, PostgreSQL only) and the tracker's settings
    /// for late fixes' detours. Throws what the backend throws on opening.
    @Sendable public static func openStore(_ c: DaemonConfig) throws -> any Store {
        let detour = LateDetour(c.tracking.settings)
        switch try Backend(config: c) {
        case .sqlite(let path):
            return try SQLiteStore(
                path: path, synchronous: c.storage.synchronous, lateDetour: detour)
        case .postgresql(let settings):
            return try PostgresStore(
                settings: settings, synchronous: c.storage.synchronous,
                node: c.cluster.node.isEmpty ? nil : c.cluster.node,
                leaseMs: Int64(c.cluster.leaseS * 1000), lateDetour: detour)
        }
    }

    /// A reader of the database (for PostgreSQL, `check`: connect now, so
    /// that a wrong URL or password fails here).
    public func reader(check: Bool = true) throws(StoreError) -> any StoreReading {
        switch self {
        case .sqlite(let path): try SQLiteReader(path: path)
        case .postgresql(let settings): try PostgresReader(settings: settings, check: check)
        }
    }

    /// The database's administration: users, tokens, the registry, webhook retries.
    public func administration() throws(StoreError) -> any StoreAdministration {
        switch self {
        case .sqlite(let path): try Credentials(path: path)
        case .postgresql(let settings): try PostgresAdministration(settings: settings)
        }
    }
}

/// A backend the config names wrongly (the PostgreSQL URL, its password file).
public struct BackendProblem: Error, CustomStringConvertible {
    public let description: String
}
