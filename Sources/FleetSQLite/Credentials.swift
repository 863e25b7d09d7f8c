import FleetModel
import FleetStorage
import Foundation
import GRDB

/// Users and tokens, edited by `fleetctl users` and `fleetctl tokens` while
/// fleetd runs: short write transactions beside the daemon's writer (WAL,
/// busy timeout 5 s), each with its audit entry. Takes hashes only; the
/// caller hashes (`FleetAuth`). Opening creates and migrates the database
/// if needed.
public final class Credentials: StoreAdministration {
    public let path: String
    let queue: DatabaseQueue

    /// The audit log's actor for changes made on this machine: `fleetctl:` and the login name.
    public static var localActor: String { AuditRecord.localActor }

    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            queue = try Schema.openWritable(path: path, synchronous: nil)
        } catch {
            throw StoreError(path: path, action: "cannot open the database", underlying: error)
        }
    }

    /// Adds a user; false when the name is taken.
    public func addUser(_ user: UserRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot add user \(user.name)") { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO users (name, role, password_hash, created_ms, groups, device, email, driver_key)
                    VALUES (?,?,?,?,?,?,?,?)
                    """,
                arguments: [
                    user.name, user.role.rawValue, user.passwordHash, user.createdMs,
                    user.groups.joined(separator: ","), user.device, user.email, user.key,
                ])
            guard db.changesCount > 0 else { return false }
            try audit(db, "user.add", user.name, user.summary)
            return true
        }
    }

    /// Sets the groups a user is limited to (empty: none); false when there
    /// is no such user.
    public func setUserGroups(_ name: String, groups: [String]) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot change the groups of \(name)") { db in
            guard try AdminSQL.setGroups(name, groups, db) else { return false }
            try audit(
                db, "user.groups", name,
                groups.isEmpty ? "every vehicle" : groups.joined(separator: ", "))
            return true
        }
    }

    /// Sets a user's email (nil: none); false when there is no such user.
    public func setUserEmail(_ name: String, email: String?) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot change the email of \(name)") { db in
            try db.execute(
                sql: "UPDATE users SET email = ? WHERE name = ?", arguments: [email, name])
            guard db.changesCount > 0 else { return false }
            try audit(db, "user.email", name, email ?? "(none)")
            return true
        }
    }

    /// Puts the known devices among `devices` in `group` (nil: none), in one transaction.
    public func setGroup(_ group: String?, devices: [String]) throws(StoreError) -> Int {
        try queue.write(path: path, "cannot set the group of \(devices.count) devices") { db in
            let update = try db.makeStatement(sql: "UPDATE devices SET grp = ? WHERE ident = ?")
            var changed = 0
            for id in devices {
                try update.execute(arguments: [group, id])
                changed += db.changesCount
            }
            try audit(
                db, "devices.group", group ?? "(none)",
                "\(changed) devices" + (devices.first.map { ", first \($0)" } ?? ""))
            return changed
        }
    }

    /// Sets a user's password hash; false when there is no such user.
    public func setPassword(_ name: String, hash: String) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot change the password of \(name)") { db in
            try db.execute(
                sql: "UPDATE users SET password_hash = ? WHERE name = ?", arguments: [hash, name])
            guard db.changesCount > 0 else { return false }
            try audit(db, "user.passwd", name, nil)
            return true
        }
    }

    /// Removes a user; false when there is no such user.
    public func removeUser(_ name: String) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot remove user \(name)") { db in
            guard try AdminSQL.removeUser(name, db) else { return false }
            try audit(db, "user.remove", name, nil)
            return true
        }
    }

    /// Adds a token; false when the name is taken.
    public func addToken(_ token: TokenRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot add token \(token.name)") { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO tokens (name, role, secret_hash, created_ms) VALUES (?,?,?,?)
                    """,
                arguments: [token.name, token.role.rawValue, token.secretHash, token.createdMs])
            guard db.changesCount > 0 else { return false }
            try audit(db, "token.add", token.name, "role \(token.role.rawValue)")
            return true
        }
    }

    /// Revokes a token; false when there is no such token.
    public func revokeToken(_ name: String) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot revoke token \(name)") { db in
            try db.execute(sql: "DELETE FROM tokens WHERE name = ?", arguments: [name])
            guard db.changesCount > 0 else { return false }
            try audit(db, "token.revoke", name, nil)
            return true
        }
    }

    public func addDevice(_ registration: DeviceRegistration) throws(StoreError) {
        try Registry(queue: queue, path: path).add(registration)
    }

    public func removeDevice(_ ident: String) throws(StoreError) -> Bool {
        try Registry(queue: queue, path: path).remove(ident)
    }

    public func queueCommand(_ command: CommandRecord) throws(StoreError) -> CommandRecord? {
        try queue.write(path: path, "cannot queue a command for \(command.device)") { db in
            guard let stored = try CommandSQL.insert(command, db) else { return nil }
            try audit(db, "command.queue", command.device, String(command.text.prefix(200)))
            return stored
        }
    }

    private func audit(_ db: Database, _ action: String, _ target: String, _ detail: String?)
        throws
    {
        try AdminSQL.record(
            AuditRecord(
                timeMs: WallClock.system.nowMs(), actor: Self.localActor,
                action: action, target: target, detail: detail), db)
    }
}
