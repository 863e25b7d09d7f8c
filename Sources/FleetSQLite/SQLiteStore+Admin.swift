import FleetStorage
import Foundation
import GRDB

/// Changes people make through the API, on the writer's connection (the
/// commit stage runs them between commits): each with its audit entry in
/// one transaction.
extension SQLiteStore {
    public func register(_ device: DeviceRegistration, audit: AuditRecord) throws(StoreError) {
        try queue.write(path: path, "cannot register device \(device.ident)") { db in
            try AdminSQL.register(device, nowMs: audit.timeMs, db)
            try AdminSQL.record(audit, db)
        }
    }

    public func putUser(_ user: UserRecord, setPassword: Bool, audit: AuditRecord)
        throws(StoreError) -> Bool
    {
        try queue.write(path: path, "cannot store user \(user.name)") { db in
            let added = try AdminSQL.putUser(user, setPassword: setPassword, db)
            try AdminSQL.record(audit, db)
            return added
        }
    }

    public func removeUser(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot remove user \(name)") { db in
            guard try AdminSQL.removeUser(name, db) else { return false }
            try AdminSQL.record(audit, db)
            return true
        }
    }

    public func putMailRule(_ rule: MailRule, audit: AuditRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot store notification rule \(rule.name)") { db in
            let added = try MailRuleSQL.put(rule, nowMs: audit.timeMs, db)
            try AdminSQL.record(audit, db)
            return added
        }
    }

    public func deleteMailRule(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot delete notification rule \(name)") { db in
            guard try MailRuleSQL.delete(name, db) else { return false }
            try AdminSQL.record(audit, db)
            return true
        }
    }

    public func unregister(_ ident: String, audit: AuditRecord) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot unregister device \(ident)") { db in
            guard try AdminSQL.unregister(ident, db) else { return false }
            try AdminSQL.record(audit, db)
            return true
        }
    }

    public func acknowledge(alert id: Int64, by: String, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> AlertRecord?
    {
        try queue.write(path: path, "cannot acknowledge alert \(id)") { db in
            guard try AdminSQL.acknowledge(id, by: by, atMs: atMs, db) else { return nil }
            try AdminSQL.record(audit, db)
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT a.id, a.time_ms, d.ident, a.type, a.fence, a.lat, a.lon, a.details,
                           a.acked_by, a.acked_ms
                    FROM alerts a JOIN devices d ON d.id = a.device_id WHERE a.id = ?
                    """, arguments: [id]
            ).map(SQLiteReader.alert)
        }
    }

    public func addShare(_ share: ShareRecord, audit: AuditRecord) throws(StoreError)
        -> ShareRecord?
    {
        try queue.write(path: path, "cannot share \(share.device)") { db in
            guard let stored = try ShareSQL.insert(share, db) else { return nil }
            try AdminSQL.record(audit, db)
            return stored
        }
    }

    public func revokeShare(device: String, id: Int64, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> Bool
    {
        try queue.write(path: path, "cannot revoke link \(id) of \(device)") { db in
            guard try ShareSQL.revoke(device: device, id: id, atMs: atMs, db) else { return false }
            try AdminSQL.record(audit, db)
            return true
        }
    }

    public func queueCommand(_ command: CommandRecord, audit: AuditRecord) throws(StoreError)
        -> CommandRecord?
    {
        try queue.write(path: path, "cannot queue a command for \(command.device)") { db in
            guard let stored = try CommandSQL.insert(command, db) else { return nil }
            try AdminSQL.record(audit, db)
            return stored
        }
    }

    public func updateCommand(id: Int64, to status: CommandStatus, atMs: Int64, response: String?)
        throws(StoreError) -> CommandRecord?
    {
        try queue.write(path: path, "cannot update command \(id)") { db in
            try CommandSQL.update(id, to: status, atMs: atMs, response: response, db)
        }
    }

    public func expireCommands(nowMs: Int64) throws(StoreError) -> [CommandRecord] {
        try queue.write(path: path, "cannot expire commands") { db in
            try CommandSQL.expire(nowMs: nowMs, db)
        }
    }

    public func record(_ audit: AuditRecord) throws(StoreError) {
        try queue.write(path: path, "cannot record an audit entry") { db in
            try AdminSQL.record(audit, db)
        }
    }

    public func tokensUsed(_ lastUsed: [String: Int64]) throws(StoreError) {
        guard !lastUsed.isEmpty else { return }
        try queue.write(path: path, "cannot note token use") { db in
            for (name, ms) in lastUsed {
                try db.execute(
                    sql:
                        "UPDATE tokens SET last_used_ms = max(coalesce(last_used_ms, 0), ?) WHERE name = ?",
                    arguments: [ms, name])
            }
        }
    }
}
