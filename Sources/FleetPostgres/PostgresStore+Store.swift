import FleetStorage

/// The PostgreSQL backend behind the `Store` interface.
extension PostgresStore: Store {
    /// The database's URL without its password.
    public var location: String { settings.location }

    public var membership: (any ClusterMembership)? { cluster }

    public func prune(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try prune(before: cutoffMs, maxRows: maxRows, maxDevices: 64)
    }

    /// A reader with its own connection.
    public func makeReader() throws(StoreError) -> any StoreReading {
        try PostgresReader(settings: settings)
    }

    /// PostgreSQL keeps itself (WAL checkpoints, autovacuum): no upkeep to run.
    public func startUpkeep(report: @escaping @Sendable (String?) -> Void) throws(StoreError) {}

    public func stopUpkeep() {}
}
