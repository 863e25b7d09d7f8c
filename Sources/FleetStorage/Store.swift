import FleetModel
import FleetTracking

/// The storage under the commit stage: one implementation per backend
/// (`SQLiteStore` in FleetSQLite, `PostgresStore` in FleetPostgres). The
/// daemon knows only this interface, made of three concerns: the commit
/// path (`StoreCommitPath`), the changes people make (`StoreChanges`) and
/// the webhook outbox (`WebhookOutboxStore`) and the mail outbox
/// (`MailOutboxStore`). Every backend passes the one
/// behaviour suite (`Tests/StorageBehaviourTests`).
///
/// Not thread-safe: the commit stage's writer thread owns a store (start-up
/// uses it before that thread starts). Every method that touches storage
/// throws `StoreError`, which names the store and what was being done.
public protocol Store: StoreCommitPath, StoreChanges, WebhookOutboxStore, MailOutboxStore {}

/// The commit path: state at start-up, replay, the batched commit,
/// retention, readers and the backend's upkeep.
public protocol StoreCommitPath: AnyObject {
    /// Where the data lives, for logs (a file path, a database URL without password).
    var location: String { get }

    /// Device ownership when this store is shared by several nodes (nil:
    /// this node tracks every device; see `ClusterMembership`).
    var membership: (any ClusterMembership)? { get }

    /// Every device's persisted tracking state, by device id.
    func loadStates() throws(StoreError) -> [String: DeviceState]

    /// For replay at start-up: calls `body` once per device with the fixes
    /// it stored after its state's checkpoint (`DeviceState.lastTime`; all
    /// of them for a device with no state), in fix-time order, leaving out
    /// those stored as `late`. The fixes carry what the tracker reads: time,
    /// position, speed, ignition, validity, reported accuracy and HDOP.
    func forEachFixAfterCheckpoint(
        _ states: [String: DeviceState], _ body: (String, [Fix]) throws -> Void
    ) throws(StoreError)

    /// Writes `batch` in one transaction (all of it or nothing) and returns
    /// its alerts as stored, with their ids (increasing: a later commit
    /// never gets a smaller one). `committedMs` is the commit's wall-clock
    /// time, Unix ms. On failure nothing of it is stored; the caller keeps
    /// the batch and retries.
    @discardableResult
    func commit(_ batch: WriteBatch, committedMs: Int64) throws(StoreError) -> [AlertRecord]

    /// Retention: deletes positions whose fix time is before `cutoffMs`, at
    /// most about `maxRows` in one short transaction. Returns rows deleted.
    /// Alerts, trips and device state are kept.
    func prune(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int

    /// A reader with its own connection, which never blocks commits.
    func makeReader() throws(StoreError) -> any StoreReading

    /// Starts the background upkeep the backend needs while the daemon runs
    /// (SQLite: WAL checkpoints on their own thread); `report` hears of a
    /// failure (its message) and of the recovery (nil).
    func startUpkeep(report: @escaping @Sendable (String?) -> Void) throws(StoreError)

    /// Stops the upkeep; the store stays usable.
    func stopUpkeep()
}

extension StoreCommitPath {
    /// A store of one node's own: no ownership to share.
    public var membership: (any ClusterMembership)? { nil }
}
