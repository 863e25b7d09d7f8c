/// SQLite's `PRAGMA synchronous` for the writer (https://sqlite.org/pragma.html#pragma_synchronous).
///
/// In WAL mode, `normal` survives a crash of fleetd (every committed
/// transaction is in the WAL file) but may lose the last commits on power
/// loss; `full` syncs the WAL at every commit and survives power loss too.
public enum SynchronousMode: String, Sendable, CaseIterable {
    case off = "OFF"
    case normal = "NORMAL"
    case full = "FULL"
    case extra = "EXTRA"
}
