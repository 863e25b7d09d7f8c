import FleetStorage
import GRDB

/// The statements behind commands to devices (the `commands` table, v12),
/// shared by the daemon's writer (`SQLiteStore`), its readers and
/// `fleetctl` (`Credentials`).
enum CommandSQL {
    static let columns = """
        c.id, d.ident, c.text, c.status, c.actor, c.queued_ms, c.expires_ms, c.sent_ms,
        c.answered_ms, c.response
        """

    static func record(_ r: Row) -> CommandRecord {
        CommandRecord(
            id: r[0], device: r[1], text: r[2],
            status: CommandStatus(rawValue: r[3] as String) ?? .failed, actor: r[4],
            queuedMs: r[5], expiresMs: r[6], sentMs: r[7], answeredMs: r[8], response: r[9])
    }

    static func one(_ id: Int64, _ db: Database) throws -> CommandRecord? {
        try Row.fetchOne(
            db,
            sql:
                "SELECT \(columns) FROM commands c JOIN devices d ON d.id = c.device_id WHERE c.id = ?",
            arguments: [id]
        ).map(record)
    }

    /// Stores `c` as queued; nil when its device is not known.
    static func insert(_ c: CommandRecord, _ db: Database) throws -> CommandRecord? {
        guard
            let device = try Int64.fetchOne(
                db, sql: "SELECT id FROM devices WHERE ident = ?", arguments: [c.device])
        else { return nil }
        try db.execute(
            sql: """
                INSERT INTO commands (device_id, text, status, actor, queued_ms, expires_ms)
                VALUES (?,?,?,?,?,?)
                """,
            arguments: [
                device, c.text, CommandStatus.queued.rawValue, c.actor, c.queuedMs, c.expiresMs,
            ])
        return try one(db.lastInsertedRowID, db)
    }

    /// Moves command `id` on (sent from queued; answered or failed from
    /// queued or sent); a command past that stays as it is.
    static func update(
        _ id: Int64, to status: CommandStatus, atMs: Int64, response: String?, _ db: Database
    ) throws -> CommandRecord? {
        switch status {
        case .sent:
            try db.execute(
                sql:
                    "UPDATE commands SET status = 'sent', sent_ms = ? WHERE id = ? AND status = 'queued'",
                arguments: [atMs, id])
        case .answered, .failed, .expired:
            try db.execute(
                sql: """
                    UPDATE commands SET status = ?, answered_ms = ?, response = ?
                    WHERE id = ? AND status IN ('queued', 'sent')
                    """,
                arguments: [status.rawValue, atMs, response, id])
        case .queued:
            break
        }
        return try one(id, db)
    }

    /// Expires what is queued or sent and due before `nowMs`.
    static func expire(nowMs: Int64, _ db: Database) throws -> [CommandRecord] {
        let ids = try Int64.fetchAll(
            db,
            sql:
                "SELECT id FROM commands WHERE status IN ('queued', 'sent') AND expires_ms < ? LIMIT 1000",
            arguments: [nowMs])
        return try ids.compactMap { try update($0, to: .expired, atMs: nowMs, response: nil, db) }
    }

    /// Newest first; `statuses` empty: all.
    static func select(
        device: String?, statuses: [CommandStatus], limit: Int, _ db: Database
    ) throws -> [CommandRecord] {
        guard try db.tableExists("commands") else { return [] }
        let wanted = statuses.map { "'\($0.rawValue)'" }.joined(separator: ",")
        return try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM commands c JOIN devices d ON d.id = c.device_id
                WHERE (? IS NULL OR d.ident = ?) \(statuses.isEmpty ? "" : "AND c.status IN (\(wanted))")
                ORDER BY c.id DESC LIMIT ?
                """,
            arguments: [device, device, limit]
        ).map(record)
    }
}
