import FleetStorage
import PostgresNIO

/// The statements behind commands to devices (the `commands` table,
/// migration 4), shared by the daemon's writer (`PostgresStore`), its
/// readers and `fleetctl` (`PostgresAdministration`).
enum PGCommandSQL {
    static let columns = """
        c.id, d.ident, c.text, c.status, c.actor, c.queued_ms, c.expires_ms, c.sent_ms,
        c.answered_ms, c.response
        """

    static func record(_ r: PGRow) throws -> CommandRecord {
        CommandRecord(
            id: try r[0], device: try r[1], text: try r[2],
            status: CommandStatus(rawValue: try r[3] as String) ?? .failed, actor: try r[4],
            queuedMs: try r[5], expiresMs: try r[6], sentMs: try r[7], answeredMs: try r[8],
            response: try r[9])
    }

    static func one(_ id: Int64, _ s: PGSession) throws -> CommandRecord? {
        try s.query(
            "SELECT \(columns) FROM commands c JOIN devices d ON d.id = c.device_id WHERE c.id = $1",
            .of(id)
        ).first.map(record)
    }

    /// Stores `c` as queued; nil when its device is not known.
    static func insert(_ c: CommandRecord, _ s: PGSession) throws -> CommandRecord? {
        guard
            let device: Int64 = try s.query(
                "SELECT id FROM devices WHERE ident = $1", .of(c.device)
            )
            .first.map({ try $0[0] })
        else { return nil }
        let id: Int64? = try s.query(
            """
            INSERT INTO commands (device_id, text, status, actor, queued_ms, expires_ms)
            VALUES ($1,$2,'queued',$3,$4,$5) RETURNING id
            """, .of(device, c.text, c.actor, c.queuedMs, c.expiresMs)
        ).first.map { try $0[0] }
        return try id.flatMap { try one($0, s) }
    }

    /// Moves command `id` on (sent from queued; answered or failed from
    /// queued or sent); a command past that stays as it is.
    static func update(
        _ id: Int64, to status: CommandStatus, atMs: Int64, response: String?, _ s: PGSession
    ) throws -> CommandRecord? {
        switch status {
        case .sent:
            _ = try s.run(
                "UPDATE commands SET status = 'sent', sent_ms = $1 WHERE id = $2 AND status = 'queued'",
                .of(atMs, id))
        case .answered, .failed, .expired:
            _ = try s.run(
                """
                UPDATE commands SET status = $1, answered_ms = $2, response = $3
                WHERE id = $4 AND status IN ('queued', 'sent')
                """, .of(status.rawValue, atMs, response, id))
        case .queued:
            break
        }
        return try one(id, s)
    }

    /// Expires what is queued or sent and due before `nowMs`.
    static func expire(nowMs: Int64, _ s: PGSession) throws -> [CommandRecord] {
        let ids: [Int64] = try s.query(
            "SELECT id FROM commands WHERE status IN ('queued', 'sent') AND expires_ms < $1 LIMIT 1000",
            .of(nowMs)
        ).map { try $0[0] }
        return try ids.compactMap { try update($0, to: .expired, atMs: nowMs, response: nil, s) }
    }

    /// Newest first; `statuses` empty: all.
    static func select(device: String?, statuses: [CommandStatus], limit: Int, _ s: PGSession)
        throws -> [CommandRecord]
    {
        try s.query(
            """
            SELECT \(columns) FROM commands c JOIN devices d ON d.id = c.device_id
            WHERE ($1::text IS NULL OR d.ident = $1)
              AND (cardinality($2::text[]) = 0 OR c.status = ANY($2::text[]))
            ORDER BY c.id DESC LIMIT $3
            """, .of(device, statuses.map(\.rawValue), Int64(limit))
        ).map(record)
    }
}
