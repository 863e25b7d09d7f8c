import FleetStorage

/// `[storage]`: where and how durably the store keeps what is committed,
/// how long positions are kept, how often device state is checkpointed.
public struct StorageConfig: Sendable, Equatable {
    /// Which database holds it all.
    public enum Backend: String, Sendable, Equatable, CaseIterable {
        /// One SQLite file (`database`): one node.
        case sqlite
        /// A PostgreSQL database (`[postgresql]`): one node or many.
        case postgresql
    }
    public var backend = Backend.sqlite
    /// Path of the SQLite file (its folder is created when missing).
    public var database = "var/fleetd.db"
    /// Durability of each commit (SQLite `synchronous`: OFF, NORMAL, FULL,
    /// EXTRA; for PostgreSQL the matching `synchronous_commit`, see
    /// `SynchronousMode.postgres`).
    public var synchronous = SynchronousMode.normal
    /// Positions whose fix time is older than this many days are deleted in
    /// the background, in small batches; 0 keeps them forever.
    public var retainDays = 90.0
    /// A device's tracking state is written at most this many seconds after
    /// it changed (at once when it goes silent, and all of it at a clean
    /// stop), not with every fix; after a crash the fixes stored since are
    /// replayed at start-up. 0 writes the state with every fix's transaction.
    public var stateCheckpointS = 10

    public init() {}

    /// Keys that moved to another section, and where.
    static let moved = ["batch_max_fixes": "engine", "batch_max_delay_ms": "engine"]

    init(_ s: inout ConfigSection) throws(ConfigError) {
        for (key, section) in Self.moved where s.table[key] != nil {
            throw s.error(key, "has moved: set \(key) in [\(section)]")
        }
        let b = try s.string("backend", default: backend.rawValue)
        guard let chosen = Backend(rawValue: b) else {
            throw s.error("backend", "must be \"sqlite\" or \"postgresql\", found \"\(b)\"")
        }
        backend = chosen
        database = try s.string("database", default: database)
        if database.isEmpty { throw s.error("database", "must not be empty") }
        let sync = try s.string("synchronous", default: synchronous.rawValue)
        guard let mode = SynchronousMode(rawValue: sync.uppercased()) else {
            throw s.error("synchronous", "must be OFF, NORMAL, FULL or EXTRA, found \"\(sync)\"")
        }
        synchronous = mode
        retainDays = try s.double("retain_days", default: retainDays, range: 0...36_500)
        stateCheckpointS = try s.int(
            "state_checkpoint_s", default: stateCheckpointS, range: 0...3600)
    }
}
