import FleetStorage
import Foundation
import GRDB

/// The device registry, edited by `fleetctl devices` while fleetd runs:
/// its own short write transactions beside the daemon's writer (WAL,
/// busy timeout 5 s). Opening creates and migrates the database if needed.
public final class Registry {
    public let path: String
    private let queue: DatabaseQueue

    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            queue = try Schema.openWritable(path: path, synchronous: nil)
        } catch {
            throw StoreError(path: path, action: "cannot open the database", underlying: error)
        }
    }

    /// Registers `ident` (or updates it), with what the vehicle is. Values
    /// left nil keep what was there.
    public func add(_ ident: String, name: String?, plate: String?, vin: String?) throws(StoreError)
    {
        do {
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO devices (ident, name, plate, vin, registered, created_ms) VALUES (?,?,?,?,1,?)
                        ON CONFLICT(ident) DO UPDATE SET registered = 1,
                          name = coalesce(excluded.name, name), plate = coalesce(excluded.plate, plate),
                          vin = coalesce(excluded.vin, vin)
                        """,
                    arguments: [
                        ident, name, plate, vin, Int64(Date().timeIntervalSince1970 * 1000),
                    ])
            }
        } catch {
            throw StoreError(path: path, action: "cannot add device \(ident)", underlying: error)
        }
    }

    /// Unregisters `ident` (its positions, alerts and state stay). Returns
    /// false when no such device was registered.
    public func remove(_ ident: String) throws(StoreError) -> Bool {
        do {
            return try queue.write { db in
                try db.execute(
                    sql:
                        "UPDATE devices SET registered = 0, name = NULL, plate = NULL, vin = NULL WHERE ident = ? AND registered = 1",
                    arguments: [ident])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError(path: path, action: "cannot remove device \(ident)", underlying: error)
        }
    }
}
