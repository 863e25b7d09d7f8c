import FleetStorage

/// The mail outbox's statements (migration 7), shared by the store and the
/// reader: `mail_rules` (each rule's cursor over the alerts) and
/// `mail_outbox` (one row per mail).
enum PGMailSQL {
    static let columns = """
        id, rule, message_id, alert_ids, created_ms, send_after_ms, next_ms, attempts, status,
        last_error, done_ms, report, period_from, period_to
        """

    static func mail(_ r: PGRow) throws -> MailRecord {
        let attempts: Int64 = try r[7]
        let status: String = try r[8]
        return MailRecord(
            id: try r[0], rule: try r[1], messageId: try r[2],
            alertIds: MailRecord.alertIds(try r[3]), createdMs: try r[4], sendAfterMs: try r[5],
            nextMs: try r[6], attempts: Int(attempts),
            status: MailRecord.Status(rawValue: status) ?? .pending, lastError: try r[9],
            doneMs: try r[10], report: try r[11], periodFromMs: try r[12], periodToMs: try r[13])
    }

    /// The newest mails first, of `statuses` (all when empty).
    static func list(statuses: [MailRecord.Status], limit: Int, _ s: PGSession) throws
        -> [MailRecord]
    {
        let filter =
            statuses.isEmpty
            ? "" : "WHERE status IN (\(statuses.map { "'\($0.rawValue)'" }.joined(separator: ",")))"
        return try s.query(
            "SELECT \(columns) FROM mail_outbox \(filter) ORDER BY id DESC LIMIT $1",
            .of(Int64(limit))
        ).map(mail)
    }
}

/// The mail outbox on the writer's connection (run by the commit stage
/// between commits). Several nodes may run it at once: a rule's cursor
/// moves only from where it was read, and a mail is claimed before it is sent.
extension PostgresStore {
    public func mailCursors(rules: [String], startAt: Int64) throws(StoreError) -> [String: Int64] {
        try link.transaction("cannot read the mail rules") { s in
            var out: [String: Int64] = [:]
            for name in rules {
                _ = try s.run(
                    "INSERT INTO mail_rules (name, cursor) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    .of(name, startAt))
                out[name] = try s.query(
                    "SELECT cursor FROM mail_rules WHERE name = $1", .of(name)
                ).first.map { try $0[0] }
            }
            return out
        }
    }

    public func gatheringMails(rules: [String], nowMs: Int64) throws(StoreError)
        -> [String: GatheringMail]
    {
        try link.session("cannot read the mail outbox") { s in
            var out: [String: GatheringMail] = [:]
            for rule in rules {
                if let r = try s.query(
                    """
                    SELECT id, length(alert_ids) - length(replace(alert_ids, ',', '')) + 1
                    FROM mail_outbox
                    WHERE rule = $1 AND status = 'pending' AND attempts = 0 AND send_after_ms > $2
                    ORDER BY id DESC LIMIT 1
                    """, .of(rule, nowMs)
                ).first {
                    let count: Int64 = try r[1]
                    out[rule] = GatheringMail(id: try r[0], count: Int(count))
                }
            }
            return out
        }
    }

    public func queueMails(_ plan: MailPlan) throws(StoreError) -> Bool {
        try link.transaction("cannot store mails") { s in
            for (rule, c) in plan.cursors.sorted(by: { $0.key < $1.key }) {
                let now: Int64? = try s.query(
                    "SELECT cursor FROM mail_rules WHERE name = $1 FOR UPDATE", .of(rule)
                ).first.map { try $0[0] }
                if now != c.from { return false }
            }
            for (rule, c) in plan.cursors {
                _ = try s.run(
                    "UPDATE mail_rules SET cursor = $1 WHERE name = $2", .of(c.to, rule))
            }
            for (id, ids) in plan.appended {
                _ = try s.run(
                    "UPDATE mail_outbox SET alert_ids = alert_ids || ',' || $1 WHERE id = $2",
                    .of(ids.map(String.init).joined(separator: ","), id))
            }
            for m in plan.new {
                // A report's period is queued once (the unique index).
                _ = try s.run(
                    """
                    INSERT INTO mail_outbox (rule, message_id, alert_ids, created_ms,
                      send_after_ms, next_ms, report, period_from, period_to)
                    VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING
                    """,
                    .of(
                        m.rule, m.messageId, m.alertIdsText, m.createdMs, m.sendAfterMs, m.nextMs,
                        m.report, m.periodFromMs, m.periodToMs))
            }
            return true
        }
    }

    public func claimMails(nowMs: Int64, leaseMs: Int64, limit: Int) throws(StoreError)
        -> [MailRecord]
    {
        try link.transaction("cannot claim mails") { s in
            try s.query(
                """
                UPDATE mail_outbox SET attempts = attempts + 1, next_ms = $2
                WHERE id IN (SELECT id FROM mail_outbox
                  WHERE status = 'pending' AND next_ms <= $1 AND send_after_ms <= $1
                  ORDER BY next_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING \(PGMailSQL.columns)
                """, .of(nowMs, nowMs + leaseMs, Int64(limit))
            ).map(PGMailSQL.mail).sorted { $0.id < $1.id }
        }
    }

    public func recordMail(_ id: Int64, _ outcome: MailOutcome, nowMs: Int64) throws(StoreError) {
        try link.transaction("cannot record mail \(id)") { s in
            switch outcome {
            case .sent(let refused):
                _ = try s.run(
                    "UPDATE mail_outbox SET status = 'sent', done_ms = $1, last_error = $2 WHERE id = $3",
                    .of(nowMs, refused, id))
            case .failed(let error, let retryAtMs):
                _ = try s.run(
                    """
                    UPDATE mail_outbox SET next_ms = $1, last_error = $2,
                      status = CASE WHEN attempts >= $3 THEN 'refused' ELSE 'pending' END,
                      done_ms = CASE WHEN attempts >= $3 THEN $4 ELSE NULL END
                    WHERE id = $5
                    """, .of(retryAtMs, error, Int64(MailRecord.maxAttempts), nowMs, id))
            case .refused(let error):
                _ = try s.run(
                    "UPDATE mail_outbox SET status = 'refused', done_ms = $1, last_error = $2 WHERE id = $3",
                    .of(nowMs, error, id))
            }
        }
    }

    public func pruneMails(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try link.transaction("cannot prune the mail outbox") { s in
            try s.run(
                """
                DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox
                  WHERE status != 'pending' AND done_ms < $1 LIMIT $2)
                """, .of(cutoffMs, Int64(maxRows)))
        }
    }
}
