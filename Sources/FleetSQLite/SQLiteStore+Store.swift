import FleetStorage

/// The SQLite backend behind the `Store` interface.
extension SQLiteStore: Store {
    public var location: String { path }

    public func prune(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try prune(before: cutoffMs, maxRows: maxRows, maxDevices: 256)
    }

    public func makeReader() throws(StoreError) -> any StoreReading {
        try SQLiteReader(path: path)
    }

    /// Starts the `WALCheckpointer` (its own connection and thread).
    public func startUpkeep(report: @escaping @Sendable (String?) -> Void) throws(StoreError) {
        guard checkpointer == nil else { return }
        let c = try WALCheckpointer(path: path)
        c.start { error in report(error.map { "WAL checkpoint: \($0)" }) }
        checkpointer = c
    }

    public func stopUpkeep() {
        checkpointer?.stop()
        checkpointer = nil
    }
}

extension SQLiteReader: StoreReading {}
