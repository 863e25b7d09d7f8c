import FleetModel
import FleetStorage
import Foundation
import PostgresNIO

/// `fleetctl`'s changes in a PostgreSQL database: users, tokens, the
/// registry and re-queued webhooks, each one transaction with its audit
/// entry (actor `AuditRecord.localActor`). Opening migrates the schema.
public final class PostgresAdministration: StoreAdministration {
    let link: PGLink

    public init(settings: PostgresSettings) throws(StoreError) {
        link = PGLink(settings, name: "fleetctl")
        try PGSchema.migrate(link)
    }

    /// Runs `sql` with `binds`; when it changed a row, records the audit
    /// entry (`action` on `target`, `detail`), all in one transaction.
    private func change(
        _ what: String, _ sql: String, _ binds: PostgresBindings, action: String,
        target: String, detail: String? = nil
    ) throws(StoreError) -> Bool {
        try link.transaction(what) { s in
            guard try s.run(sql, binds) > 0 else { return false }
            try PGAdminSQL.record(audit(action, target, detail), s)
            return true
        }
    }

    private func audit(_ action: String, _ target: String, _ detail: String?) -> AuditRecord {
        AuditRecord(
            timeMs: WallClock.system.nowMs(), actor: AuditRecord.localActor,
            action: action, target: target, detail: detail)
    }

    public func addUser(_ user: UserRecord) throws(StoreError) -> Bool {
        try change(
            "cannot add user \(user.name)",
            """
            INSERT INTO users (name, role, password_hash, created_ms, groups, device, email, driver_key)
            VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
            ON CONFLICT (name) DO NOTHING
            """,
            .of(
                user.name, user.role.rawValue, user.passwordHash, user.createdMs,
                user.groups.joined(separator: ","), user.device, user.email, user.key),
            action: "user.add", target: user.name, detail: user.summary)
    }

    public func setGroup(_ group: String?, devices: [String]) throws(StoreError) -> Int {
        let a = audit("devices.group", group ?? "(none)", nil)
        return try link.transaction("cannot set the group of \(devices.count) devices") { s in
            var changed = 0
            // In slices: one statement per 10 000 ids.
            var start = 0
            while start < devices.count {
                let slice = Array(devices[start..<min(start + 10_000, devices.count)])
                changed += try s.run(
                    "UPDATE devices SET grp = $1 WHERE ident = ANY($2::text[])", .of(group, slice))
                start += 10_000
            }
            var entry = a
            entry.detail = "\(changed) devices" + (devices.first.map { ", first \($0)" } ?? "")
            try PGAdminSQL.record(entry, s)
            return changed
        }
    }

    public func setUserGroups(_ name: String, groups: [String]) throws(StoreError) -> Bool {
        try change(
            "cannot change the groups of \(name)",
            "UPDATE users SET groups = $1 WHERE name = $2",
            .of(groups.joined(separator: ","), name), action: "user.groups", target: name,
            detail: groups.isEmpty ? "every vehicle" : groups.joined(separator: ", "))
    }

    public func setUserEmail(_ name: String, email: String?) throws(StoreError) -> Bool {
        try change(
            "cannot change the email of \(name)", "UPDATE users SET email = $1 WHERE name = $2",
            .of(email, name), action: "user.email", target: name, detail: email ?? "(none)")
    }

    public func setPassword(_ name: String, hash: String) throws(StoreError) -> Bool {
        try change(
            "cannot change the password of \(name)",
            "UPDATE users SET password_hash = $1 WHERE name = $2", .of(hash, name),
            action: "user.passwd", target: name)
    }

    public func removeUser(_ name: String) throws(StoreError) -> Bool {
        try change(
            "cannot remove user \(name)", "DELETE FROM users WHERE name = $1", .of(name),
            action: "user.remove", target: name)
    }

    public func addToken(_ token: TokenRecord) throws(StoreError) -> Bool {
        try change(
            "cannot add token \(token.name)",
            """
            INSERT INTO tokens (name, role, secret_hash, created_ms) VALUES ($1,$2,$3,$4)
            ON CONFLICT (name) DO NOTHING
            """, .of(token.name, token.role.rawValue, token.secretHash, token.createdMs),
            action: "token.add", target: token.name, detail: "role \(token.role.rawValue)")
    }

    public func revokeToken(_ name: String) throws(StoreError) -> Bool {
        try change(
            "cannot revoke token \(name)", "DELETE FROM tokens WHERE name = $1", .of(name),
            action: "token.revoke", target: name)
    }

    public func retryWebhook(_ name: String, audit: AuditRecord) throws(StoreError) -> Int? {
        try link.transaction("cannot re-queue webhook \(name)") { s in
            let n = try PGWebhookSQL.retry(name, nowMs: audit.timeMs, s)
            if n != nil { try PGAdminSQL.record(audit, s) }
            return n
        }
    }

    public func addDevice(_ registration: DeviceRegistration) throws(StoreError) {
        let ident = registration.ident
        let a = audit("device.add", ident, registration.groupAudit)
        try link.transaction("cannot add device \(ident)") { s in
            try PGAdminSQL.register(registration, nowMs: a.timeMs, s)
            try PGAdminSQL.record(a, s)
        }
    }

    public func queueCommand(_ command: CommandRecord) throws(StoreError) -> CommandRecord? {
        let a = audit("command.queue", command.device, String(command.text.prefix(200)))
        return try link.transaction("cannot queue a command for \(command.device)") { s in
            guard let stored = try PGCommandSQL.insert(command, s) else { return nil }
            try PGAdminSQL.record(a, s)
            return stored
        }
    }

    public func removeDevice(_ ident: String) throws(StoreError) -> Bool {
        let a = audit("device.remove", ident, nil)
        return try link.transaction("cannot remove device \(ident)") { s in
            guard try PGAdminSQL.unregister(ident, s) else { return false }
            try PGAdminSQL.record(a, s)
            return true
        }
    }
}
