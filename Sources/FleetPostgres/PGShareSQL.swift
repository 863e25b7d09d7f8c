import FleetStorage

/// The `shares` table's statements (migration 6), shared by the store and
/// the reader.
enum PGShareSQL {
    static let columns =
        "s.id, d.ident, s.token_hash, s.created_ms, s.expires_ms, s.created_by, s.revoked_ms"

    static func share(_ r: PGRow) throws -> ShareRecord {
        ShareRecord(
            id: try r[0], device: try r[1], tokenHash: try r[2], createdMs: try r[3],
            expiresMs: try r[4], createdBy: try r[5], revokedMs: try r[6])
    }

    /// Inserts `share`; nil when its device is not known.
    static func insert(_ share: ShareRecord, _ s: PGSession) throws -> ShareRecord? {
        guard
            let device: Int64 = try s.query(
                "SELECT id FROM devices WHERE ident = $1", .of(share.device)
            ).first.map({ try $0[0] })
        else { return nil }
        let id: Int64? = try s.query(
            """
            INSERT INTO shares (device_id, token_hash, created_ms, expires_ms, created_by)
            VALUES ($1,$2,$3,$4,$5) RETURNING id
            """, .of(device, share.tokenHash, share.createdMs, share.expiresMs, share.createdBy)
        ).first.map { try $0[0] }
        guard let id else { return nil }
        var stored = share
        stored.id = id
        stored.revokedMs = nil
        return stored
    }

    /// Revokes link `id` of `device` (unless it already is); false when none.
    static func revoke(device: String, id: Int64, atMs: Int64, _ s: PGSession) throws -> Bool {
        guard
            try s.query(
                """
                SELECT s.id FROM shares s JOIN devices d ON d.id = s.device_id
                WHERE s.id = $1 AND d.ident = $2
                """, .of(id, device)
            ).first != nil
        else { return false }
        _ = try s.run(
            "UPDATE shares SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL",
            .of(atMs, id))
        return true
    }

    static func byDevice(_ device: String, _ s: PGSession) throws -> [ShareRecord] {
        try s.query(
            """
            SELECT \(columns) FROM shares s JOIN devices d ON d.id = s.device_id
            WHERE d.ident = $1 ORDER BY s.id DESC
            """, .of(device)
        ).map(share)
    }

    static func byToken(_ hash: String, _ s: PGSession) throws -> ShareRecord? {
        try s.query(
            """
            SELECT \(columns) FROM shares s JOIN devices d ON d.id = s.device_id
            WHERE s.token_hash = $1
            """, .of(hash)
        ).first.map(share)
    }
}
