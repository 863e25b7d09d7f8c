import FleetStorage
import PostgresNIO

/// The statements behind changes people make (the registry,
/// acknowledgements, the audit log), shared by the daemon's writer
/// (`PostgresStore`, for the API) and `fleetctl` (`PostgresAdministration`).
enum PGAdminSQL {
    static func register(_ d: DeviceRegistration, nowMs: Int64, _ s: PGSession) throws {
        func set(_ c: String) -> String {
            "\(c) = " + (d.replace ? "excluded.\(c)" : "coalesce(excluded.\(c), devices.\(c))")
        }
        // In either mode: nil keeps the group, the empty group takes the vehicle out of it.
        let group =
            "grp = CASE WHEN $6::text IS NULL THEN devices.grp WHEN $6::text = '' THEN NULL ELSE $6::text END"
        try s.run(
            """
            INSERT INTO devices (ident, name, plate, vin, registered, created_ms, grp)
            VALUES ($1,$2,$3,$4,true,$5,NULLIF($6::text, ''))
            ON CONFLICT (ident) DO UPDATE SET registered = true, \(set("name")), \(set("plate")),
              \(set("vin")), \(group)
            """, .of(d.ident, d.name, d.plate, d.vin, nowMs, d.group))
    }

    /// Adds `user` or replaces an existing one's role, groups, vehicle,
    /// email (and password hash when `setPassword`); true when added.
    static func putUser(_ user: UserRecord, setPassword: Bool, _ s: PGSession) throws -> Bool {
        let existed = try !s.query("SELECT 1 FROM users WHERE name = $1", .of(user.name)).isEmpty
        try s.run(
            """
            INSERT INTO users (name, role, password_hash, created_ms, groups, device, email, driver_key)
            VALUES ($1,$2,$3,$4,$5,$6,$7,$9)
            ON CONFLICT (name) DO UPDATE SET role = excluded.role, groups = excluded.groups,
              device = excluded.device, email = excluded.email, driver_key = excluded.driver_key,
              password_hash = CASE WHEN $8 THEN excluded.password_hash ELSE users.password_hash END
            """,
            .of(
                user.name, user.role.rawValue, user.passwordHash, user.createdMs,
                user.groups.joined(separator: ","), user.device, user.email, setPassword, user.key))
        return !existed
    }

    /// Adds or replaces an API notification rule; true when added.
    static func putMailRule(_ rule: MailRule, nowMs: Int64, _ s: PGSession) throws -> Bool {
        let existed = try !s.query(
            "SELECT 1 FROM notification_rules WHERE name = $1", .of(rule.name)
        )
        .isEmpty
        try s.run(
            """
            INSERT INTO notification_rules (name, definition, created_by, created_ms, updated_ms)
            VALUES ($1, $2, $3, $4, $4)
            ON CONFLICT (name) DO UPDATE SET definition = excluded.definition,
              updated_ms = excluded.updated_ms
            """, .of(rule.name, RecordCoding.line(rule), rule.createdBy, nowMs))
        return !existed
    }

    /// False when `ident` was not registered.
    static func unregister(_ ident: String, _ s: PGSession) throws -> Bool {
        try s.run(
            """
            UPDATE devices SET registered = false, name = NULL, plate = NULL, vin = NULL, grp = NULL
            WHERE ident = $1 AND registered
            """, .of(ident)) > 0
    }

    /// False when there is no alert `id`; an alert already acknowledged keeps its first acknowledgement.
    static func acknowledge(_ id: Int64, by: String, atMs: Int64, _ s: PGSession) throws -> Bool {
        guard try !s.query("SELECT id FROM alerts WHERE id = $1", .of(id)).isEmpty else {
            return false
        }
        try s.run(
            "UPDATE alerts SET acked_by = $1, acked_ms = $2 WHERE id = $3 AND acked_by IS NULL",
            .of(by, atMs, id))
        return true
    }

    static func record(_ a: AuditRecord, _ s: PGSession) throws {
        try s.run(
            "INSERT INTO audit (time_ms, actor, action, target, detail) VALUES ($1,$2,$3,$4,$5)",
            .of(a.timeMs, a.actor, a.action, a.target, a.detail))
    }
}
