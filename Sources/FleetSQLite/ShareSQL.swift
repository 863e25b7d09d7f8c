import FleetStorage
import GRDB

/// The `shares` table's statements (schema v14), shared by the store and
/// the reader.
enum ShareSQL {
    static let columns =
        "s.id, d.ident, s.token_hash, s.created_ms, s.expires_ms, s.created_by, s.revoked_ms"

    static func share(_ r: Row) -> ShareRecord {
        ShareRecord(
            id: r[0], device: r[1], tokenHash: r[2], createdMs: r[3], expiresMs: r[4],
            createdBy: r[5], revokedMs: r[6])
    }

    /// Inserts `share`; nil when its device is not known.
    static func insert(_ share: ShareRecord, _ db: Database) throws -> ShareRecord? {
        guard
            let deviceId = try Int64.fetchOne(
                db, sql: "SELECT id FROM devices WHERE ident = ?", arguments: [share.device])
        else { return nil }
        try db.execute(
            sql: """
                INSERT INTO shares (device_id, token_hash, created_ms, expires_ms, created_by)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [
                deviceId, share.tokenHash, share.createdMs, share.expiresMs, share.createdBy,
            ])
        var stored = share
        stored.id = db.lastInsertedRowID
        stored.revokedMs = nil
        return stored
    }

    /// Revokes link `id` of `device` (unless it already is); false when none.
    static func revoke(device: String, id: Int64, atMs: Int64, _ db: Database) throws -> Bool {
        guard
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT s.id FROM shares s JOIN devices d ON d.id = s.device_id
                    WHERE s.id = ? AND d.ident = ?
                    """, arguments: [id, device]) != nil
        else { return false }
        try db.execute(
            sql: "UPDATE shares SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL",
            arguments: [atMs, id])
        return true
    }

    static func byDevice(_ device: String, _ db: Database) throws -> [ShareRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM shares s JOIN devices d ON d.id = s.device_id
                WHERE d.ident = ? ORDER BY s.id DESC
                """, arguments: [device]
        ).map(share)
    }

    static func byToken(_ hash: String, _ db: Database) throws -> ShareRecord? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT \(columns) FROM shares s JOIN devices d ON d.id = s.device_id
                WHERE s.token_hash = ?
                """, arguments: [hash]
        ).map(share)
    }
}
