import FleetModel
import FleetTracking

/// The storage under the commit stage: one implementation per backend
/// (`SQLiteStore` in FleetSQLite). The daemon knows only this interface.
///
/// Not thread-safe: the commit stage's writer thread owns a store (start-up
/// uses it before that thread starts). Every method that touches storage
/// throws `StoreError`, which names the store and what was being done.
public protocol Store: AnyObject {
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

    // MARK: Changes made by people (the API), run by the commit stage between commits

    /// Registers a device (or updates it) and records `audit`, in one transaction.
    func register(_ device: DeviceRegistration, audit: AuditRecord) throws(StoreError)

    /// Unregisters a device (its positions, alerts and state stay) and
    /// records `audit`. False (nothing recorded) when it was not registered.
    func unregister(_ ident: String, audit: AuditRecord) throws(StoreError) -> Bool

    /// Marks alert `id` acknowledged by `by` at `atMs` (Unix ms) unless it
    /// already is, and records `audit`. Returns the alert as stored after,
    /// or nil when there is no such alert.
    func acknowledge(alert id: Int64, by: String, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> AlertRecord?

    /// Records one audit entry by itself (a change stored elsewhere, such as the fences file).
    func record(_ audit: AuditRecord) throws(StoreError)

    /// Notes when tokens were last used (name → Unix ms).
    func tokensUsed(_ lastUsed: [String: Int64]) throws(StoreError)

    // MARK: Commands to devices (run by the commit stage, between commits)

    /// Stores `command` as queued for its device and records `audit`, in
    /// one transaction. The command as stored (with its id); nil when the
    /// device is not known (neither registered nor heard from).
    func queueCommand(_ command: CommandRecord, audit: AuditRecord) throws(StoreError)
        -> CommandRecord?

    /// Moves command `id` to `status` at `atMs` (Unix ms): `sent` from
    /// queued; `answered`, `failed` or `expired` from queued or sent, with
    /// `response`. A command already past that stays as it is. The
    /// command after; nil when there is none.
    func updateCommand(id: Int64, to status: CommandStatus, atMs: Int64, response: String?)
        throws(StoreError) -> CommandRecord?

    /// Expires the commands queued or sent whose `expiresMs` is before
    /// `nowMs` (at most 1 000 a call); returns them.
    func expireCommands(nowMs: Int64) throws(StoreError) -> [CommandRecord]

    // MARK: Webhooks (run by the commit stage, between commits)

    /// Every subscription, with its state (`disabled`), by name.
    func webhooks() throws(StoreError) -> [WebhookSubscription]

    /// Stores `subscription` (replacing its settings, keeping its outbox)
    /// and records `audit` when given, in one transaction. A new one starts
    /// with the next alert committed; with `since`, it is owed every stored
    /// alert with a greater id that it matches (backfill). Returns true
    /// when it was new.
    func putWebhook(_ subscription: WebhookSubscription, since: Int64?, audit: AuditRecord?)
        throws(StoreError) -> Bool

    /// Deletes a subscription with its outbox (what it was still owed is
    /// dropped) and records `audit` when given. False when there was none.
    func deleteWebhook(_ name: String, audit: AuditRecord?) throws(StoreError) -> Bool

    /// The batch subscription `name` is to be sent next, at `nowMs`: its
    /// oldest pending batch, or a new one formed (and stored, with its
    /// `webhook-id`) of up to `batch_max` alerts owed. Batches whose oldest
    /// alert is older than `max_age_h` are dead-lettered on the way. Nil
    /// when nothing is owed, the subscription is disabled or gone.
    func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch?

    /// Records what an attempt at `batch` came to (see `WebhookAttempt`).
    func recordWebhookAttempt(_ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64)
        throws(StoreError)

    /// Retention: deletes delivered batches (and their outbox rows)
    /// delivered before `cutoffMs`, at most about `maxRows` rows. Returns
    /// outbox rows deleted.
    func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int
}

extension Store {
    /// A store of one node's own: no ownership to share.
    public var membership: (any ClusterMembership)? { nil }
}
