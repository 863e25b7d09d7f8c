import Foundation

/// The changes `fleetctl` makes beside a running fleetd (users, tokens, the
/// device registry, re-queued webhooks): each its own short transaction
/// with its audit entry, as `AuditRecord.localActor`. One implementation
/// per backend (`Credentials` in FleetSQLite, `PostgresAdministration` in
/// FleetPostgres). Takes hashes only; the caller hashes (`FleetAuth`).
public protocol StoreAdministration {
    /// Adds a user; false when the name is taken.
    func addUser(_ user: UserRecord) throws(StoreError) -> Bool
    /// Sets a user's password hash; false when there is no such user.
    func setPassword(_ name: String, hash: String) throws(StoreError) -> Bool
    /// Removes a user; false when there is no such user.
    func removeUser(_ name: String) throws(StoreError) -> Bool
    /// Adds a token; false when the name is taken.
    func addToken(_ token: TokenRecord) throws(StoreError) -> Bool
    /// Revokes a token; false when there is no such token.
    func revokeToken(_ name: String) throws(StoreError) -> Bool
    /// Re-queues `name`'s refused and dead-lettered batches and enables it
    /// again, with `audit`. The batches re-queued; nil when there is no
    /// such subscription.
    func retryWebhook(_ name: String, audit: AuditRecord) throws(StoreError) -> Int?
    /// Stores a service done, with its audit entry (`maintenance.done`).
    func addMaintenance(_ record: MaintenanceRecord, audit: AuditRecord) throws(StoreError)
    /// Registers a device (or updates it; values left nil keep what was
    /// there, an empty group takes it out of its group).
    func addDevice(_ registration: DeviceRegistration) throws(StoreError)
    /// Sets the groups a user is limited to (empty: none); false when there
    /// is no such user.
    func setUserGroups(_ name: String, groups: [String]) throws(StoreError) -> Bool
    /// Sets a user's email (nil: none), audited as `user.email`; false when
    /// there is no such user.
    func setUserEmail(_ name: String, email: String?) throws(StoreError) -> Bool
    /// Puts the known devices among `devices` (registered or only seen) in
    /// `group` (nil: in none), in one transaction audited once
    /// (`devices.group`). The devices changed; ids not known are skipped.
    func setGroup(_ group: String?, devices: [String]) throws(StoreError) -> Int
    /// Unregisters `ident` (its positions, alerts and state stay); false
    /// when it was not registered.
    func removeDevice(_ ident: String) throws(StoreError) -> Bool
    /// Queues `command` for its device (the daemon sends it once the
    /// device is connected), audited as `command.queue`; nil when the
    /// device is not known.
    func queueCommand(_ command: CommandRecord) throws(StoreError) -> CommandRecord?
}

extension StoreAdministration {
    /// Registers `ident` (or updates it; values left nil keep what was there).
    public func addDevice(_ ident: String, name: String?, plate: String?, vin: String?)
        throws(StoreError)
    {
        try addDevice(DeviceRegistration(ident: ident, name: name, plate: plate, vin: vin))
    }
}

extension AuditRecord {
    /// The audit log's actor for changes made on this machine: `fleetctl:` and the login name.
    public static var localActor: String {
        if let sudo = ProcessInfo.processInfo.environment["SUDO_USER"] { return "fleetctl:" + sudo }
        guard let pw = getpwuid(getuid()), let name = pw.pointee.pw_name else {
            return "fleetctl:uid \(getuid())"
        }
        return "fleetctl:" + String(cString: name)
    }
}
