import FleetModel
import FleetStorage
import Foundation
import GRDB

/// The device registry, edited by `fleetctl devices` while fleetd runs:
/// its own short write transactions beside the daemon's writer (WAL,
/// busy timeout 5 s). Opening creates and migrates the database if needed.
public final class Registry {
    public let path: String
    private let queue: DatabaseQueue

    /// A registry on `queue` (a connection already open on `path`).
    init(queue: DatabaseQueue, path: String) {
        self.path = path
        self.queue = queue
    }

    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            queue = try Schema.openWritable(path: path, synchronous: nil)
        } catch {
            throw StoreError(path: path, action: "cannot open the database", underlying: error)
        }
    }

    /// Registers (or updates) a device as `registration` says, recorded in
    /// the audit log as `actor`'s.
    public func add(_ registration: DeviceRegistration, actor: String = Credentials.localActor)
        throws(StoreError)
    {
        let now = WallClock.system.nowMs()
        let ident = registration.ident
        try queue.write(path: path, "cannot add device \(ident)") { db in
            try AdminSQL.register(registration, nowMs: now, db)
            try AdminSQL.record(
                AuditRecord(
                    timeMs: now, actor: actor, action: "device.add", target: ident,
                    detail: registration.groupAudit),
                db)
        }
    }

    /// Unregisters `ident` (its positions, alerts and state stay). Returns
    /// false when no such device was registered.
    public func remove(_ ident: String, actor: String = Credentials.localActor) throws(StoreError)
        -> Bool
    {
        let now = WallClock.system.nowMs()
        return try queue.write(path: path, "cannot remove device \(ident)") { db in
            guard try AdminSQL.unregister(ident, db) else { return false }
            try AdminSQL.record(
                AuditRecord(timeMs: now, actor: actor, action: "device.remove", target: ident), db)
            return true
        }
    }
}
