import FleetModel
import FleetTracking

/// The changes people make through the API (the registry, acknowledgements,
/// the audit log, token use, commands to devices, shared links), run by the commit stage
/// between commits, each in one transaction with its audit record.
public protocol StoreChanges: AnyObject {
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

    // Commands to devices.

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

    // Links that share a vehicle.

    /// Stores `share` (its `id` ignored) and records `audit`, in one
    /// transaction. The link as stored (with its id); nil when the device
    /// is not known.
    func addShare(_ share: ShareRecord, audit: AuditRecord) throws(StoreError) -> ShareRecord?

    /// Stores services done (`maintenance_done`), with `audit` when a
    /// person recorded them (nil: the plans' own start records).
    func addMaintenance(_ records: [MaintenanceRecord], audit: AuditRecord?) throws(StoreError)

    /// Revokes link `id` of `device` at `atMs` (Unix ms) unless it already
    /// is, and records `audit`. False when the device has no such link.
    func revokeShare(device: String, id: Int64, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> Bool

    // Users and notification rules (`/api/v1/users`, `/api/v1/notifications`).

    /// Adds `user`, or replaces an existing one's role, groups, vehicle and
    /// email, and its password hash too when `setPassword` (its creation
    /// time is kept); records `audit`. True when it was added.
    func putUser(_ user: UserRecord, setPassword: Bool, audit: AuditRecord) throws(StoreError)
        -> Bool

    /// Removes user `name` and records `audit`; false (nothing recorded) when there is none.
    func removeUser(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool

    /// Stores an API rule (`origin` `.api`), adding or replacing it by
    /// name, and records `audit`. True when it was added.
    func putMailRule(_ rule: MailRule, audit: AuditRecord) throws(StoreError) -> Bool

    /// Deletes API rule `name` and records `audit`; false (nothing
    /// recorded) when there is none. Its mails not yet sent are refused
    /// when their turn comes.
    func deleteMailRule(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool
}
