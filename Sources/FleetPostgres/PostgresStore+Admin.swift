import FleetStorage
import PostgresNIO

/// Changes people make through the API, on the writer's connection (the
/// commit stage runs them between commits): each with its audit entry in
/// one transaction.
extension PostgresStore {
    public func register(_ device: DeviceRegistration, audit: AuditRecord) throws(StoreError) {
        try link.transaction("cannot register device \(device.ident)") { s in
            try PGAdminSQL.register(device, nowMs: audit.timeMs, s)
            try PGAdminSQL.record(audit, s)
        }
    }

    public func putUser(_ user: UserRecord, setPassword: Bool, audit: AuditRecord)
        throws(StoreError) -> Bool
    {
        try link.transaction("cannot store user \(user.name)") { s in
            let added = try PGAdminSQL.putUser(user, setPassword: setPassword, s)
            try PGAdminSQL.record(audit, s)
            return added
        }
    }

    public func removeUser(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try link.transaction("cannot remove user \(name)") { s in
            guard try s.run("DELETE FROM users WHERE name = $1", .of(name)) > 0 else {
                return false
            }
            try PGAdminSQL.record(audit, s)
            return true
        }
    }

    public func putMailRule(_ rule: MailRule, audit: AuditRecord) throws(StoreError) -> Bool {
        try link.transaction("cannot store notification rule \(rule.name)") { s in
            let added = try PGAdminSQL.putMailRule(rule, nowMs: audit.timeMs, s)
            try PGAdminSQL.record(audit, s)
            return added
        }
    }

    public func deleteMailRule(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try link.transaction("cannot delete notification rule \(name)") { s in
            guard try s.run("DELETE FROM notification_rules WHERE name = $1", .of(name)) > 0 else {
                return false
            }
            try PGAdminSQL.record(audit, s)
            return true
        }
    }

    public func unregister(_ ident: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try link.transaction("cannot unregister device \(ident)") { s in
            guard try PGAdminSQL.unregister(ident, s) else { return false }
            try PGAdminSQL.record(audit, s)
            return true
        }
    }

    public func acknowledge(alert id: Int64, by: String, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> AlertRecord?
    {
        try link.transaction("cannot acknowledge alert \(id)") { s in
            guard try PGAdminSQL.acknowledge(id, by: by, atMs: atMs, s) else { return nil }
            try PGAdminSQL.record(audit, s)
            return try s.query(
                """
                SELECT \(PostgresReader.alertColumns)
                FROM alerts a JOIN devices d ON d.id = a.device_id WHERE a.id = $1
                """, .of(id)
            ).first.map(PostgresReader.alert)
        }
    }

    public func addShare(_ share: ShareRecord, audit: AuditRecord) throws(StoreError)
        -> ShareRecord?
    {
        try link.transaction("cannot share \(share.device)") { s in
            guard let stored = try PGShareSQL.insert(share, s) else { return nil }
            try PGAdminSQL.record(audit, s)
            return stored
        }
    }

    public func revokeShare(device: String, id: Int64, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> Bool
    {
        try link.transaction("cannot revoke link \(id) of \(device)") { s in
            guard try PGShareSQL.revoke(device: device, id: id, atMs: atMs, s) else {
                return false
            }
            try PGAdminSQL.record(audit, s)
            return true
        }
    }

    public func queueCommand(_ command: CommandRecord, audit: AuditRecord) throws(StoreError)
        -> CommandRecord?
    {
        try link.transaction("cannot queue a command for \(command.device)") { s in
            guard let stored = try PGCommandSQL.insert(command, s) else { return nil }
            try PGAdminSQL.record(audit, s)
            return stored
        }
    }

    public func updateCommand(id: Int64, to status: CommandStatus, atMs: Int64, response: String?)
        throws(StoreError) -> CommandRecord?
    {
        try link.transaction("cannot update command \(id)") { s in
            try PGCommandSQL.update(id, to: status, atMs: atMs, response: response, s)
        }
    }

    public func expireCommands(nowMs: Int64) throws(StoreError) -> [CommandRecord] {
        try link.transaction("cannot expire commands") { s in
            try PGCommandSQL.expire(nowMs: nowMs, s)
        }
    }

    public func record(_ audit: AuditRecord) throws(StoreError) {
        try link.transaction("cannot record an audit entry") { s in try PGAdminSQL.record(audit, s)
        }
    }

    public func tokensUsed(_ lastUsed: [String: Int64]) throws(StoreError) {
        guard !lastUsed.isEmpty else { return }
        try link.transaction("cannot note token use") { s in
            for (name, ms) in lastUsed {
                try s.run(
                    "UPDATE tokens SET last_used_ms = greatest(coalesce(last_used_ms, 0), $1) WHERE name = $2",
                    .of(ms, name))
            }
        }
    }
}
