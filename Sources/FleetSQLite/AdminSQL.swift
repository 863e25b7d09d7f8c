import FleetStorage
import GRDB

/// The statements behind changes people make (the registry, users, tokens,
/// acknowledgements, the audit log), shared by the daemon's writer
/// (`SQLiteStore`, for the API) and `fleetctl`'s own short transactions
/// (`Registry`, `Credentials`).
enum AdminSQL {
    static func register(_ d: DeviceRegistration, nowMs: Int64, _ db: Database) throws {
        func set(_ c: String) -> String {
            "\(c) = " + (d.replace ? "excluded.\(c)" : "coalesce(excluded.\(c), \(c))")
        }
        // In either mode: nil keeps the group, the empty group takes the vehicle out of it.
        let group = "grp = CASE WHEN ?6 IS NULL THEN grp WHEN ?6 = '' THEN NULL ELSE ?6 END"
        try db.execute(
            sql: """
                INSERT INTO devices (ident, name, plate, vin, registered, created_ms, grp)
                VALUES (?1,?2,?3,?4,1,?5,NULLIF(?6, ''))
                ON CONFLICT(ident) DO UPDATE SET registered = 1, \(set("name")), \(set("plate")),
                  \(set("vin")), \(group)
                """,
            arguments: [d.ident, d.name, d.plate, d.vin, nowMs, d.group])
    }

    /// Sets a user's groups; false when there is no such user.
    static func setGroups(_ name: String, _ groups: [String], _ db: Database) throws -> Bool {
        try db.execute(
            sql: "UPDATE users SET groups = ? WHERE name = ?",
            arguments: [groups.joined(separator: ","), name])
        return db.changesCount > 0
    }

    /// Adds `user` or replaces an existing one's role, groups, vehicle,
    /// email (and password hash when `setPassword`); true when added.
    static func putUser(_ user: UserRecord, setPassword: Bool, _ db: Database) throws -> Bool {
        let existed =
            try Int.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [user.name])
            != nil
        try db.execute(
            sql: """
                INSERT INTO users (name, role, password_hash, created_ms, groups, device, email, driver_key)
                VALUES (?1,?2,?3,?4,?5,?6,?7,?9)
                ON CONFLICT(name) DO UPDATE SET role = excluded.role, groups = excluded.groups,
                  device = excluded.device, email = excluded.email, driver_key = excluded.driver_key,
                  password_hash = CASE WHEN ?8 THEN excluded.password_hash ELSE password_hash END
                """,
            arguments: [
                user.name, user.role.rawValue, user.passwordHash, user.createdMs,
                user.groups.joined(separator: ","), user.device, user.email, setPassword, user.key,
            ])
        return !existed
    }

    /// False when there is no user `name`.
    static func removeUser(_ name: String, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM users WHERE name = ?", arguments: [name])
        return db.changesCount > 0
    }

    /// False when `ident` was not registered.
    static func unregister(_ ident: String, _ db: Database) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE devices SET registered = 0, name = NULL, plate = NULL, vin = NULL, grp = NULL
                WHERE ident = ? AND registered = 1
                """,
            arguments: [ident])
        return db.changesCount > 0
    }

    /// False when there is no alert `id`; an alert already acknowledged keeps its first acknowledgement.
    static func acknowledge(_ id: Int64, by: String, atMs: Int64, _ db: Database) throws -> Bool {
        guard
            try Int64.fetchOne(db, sql: "SELECT id FROM alerts WHERE id = ?", arguments: [id])
                != nil
        else { return false }
        try db.execute(
            sql: "UPDATE alerts SET acked_by = ?, acked_ms = ? WHERE id = ? AND acked_by IS NULL",
            arguments: [by, atMs, id])
        return true
    }

    static func record(_ a: AuditRecord, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO audit (time_ms, actor, action, target, detail) VALUES (?,?,?,?,?)",
            arguments: [a.timeMs, a.actor, a.action, a.target, a.detail])
    }
}
