import FleetStorage
import GRDB

/// The mail outbox's tables (schema v15) and statements, shared by the
/// store and the reader: `mail_rules` (each rule's cursor over the alerts)
/// and `mail_outbox` (one row per mail).
enum MailSQL {
    static let schema = """
        CREATE TABLE mail_rules (name TEXT PRIMARY KEY, cursor INTEGER NOT NULL);
        CREATE TABLE mail_outbox (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          rule TEXT NOT NULL,
          message_id TEXT NOT NULL UNIQUE,
          alert_ids TEXT NOT NULL,
          created_ms INTEGER NOT NULL,
          send_after_ms INTEGER NOT NULL,
          next_ms INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          status TEXT NOT NULL DEFAULT 'pending',
          last_error TEXT,
          done_ms INTEGER,
          report TEXT,
          period_from INTEGER,
          period_to INTEGER
        );
        CREATE INDEX mail_outbox_pending ON mail_outbox(next_ms) WHERE status = 'pending';
        CREATE UNIQUE INDEX mail_outbox_report ON mail_outbox(report, period_from)
          WHERE report IS NOT NULL;
        CREATE INDEX mail_outbox_gathering ON mail_outbox(rule, id)
          WHERE status = 'pending' AND attempts = 0;
        """

    /// A rule's newest mail still gathering: its id and alert count
    /// (through `mail_outbox_gathering`, without reading the ids).
    static let gathering = """
        SELECT id, length(alert_ids) - length(replace(alert_ids, ',', '')) + 1 FROM mail_outbox
        WHERE rule = ? AND status = 'pending' AND attempts = 0 AND send_after_ms > ?
        ORDER BY id DESC LIMIT 1
        """

    static let columns = """
        id, rule, message_id, alert_ids, created_ms, send_after_ms, next_ms, attempts, status,
        last_error, done_ms, report, period_from, period_to
        """

    static func mail(_ r: Row) -> MailRecord {
        MailRecord(
            id: r[0], rule: r[1], messageId: r[2], alertIds: MailRecord.alertIds(r[3]),
            createdMs: r[4], sendAfterMs: r[5], nextMs: r[6], attempts: r[7],
            status: MailRecord.Status(rawValue: r[8]) ?? .pending, lastError: r[9], doneMs: r[10],
            report: r[11], periodFromMs: r[12], periodToMs: r[13])
    }

    /// The newest mails first, of `statuses` (all when empty).
    static func list(statuses: [MailRecord.Status], limit: Int, _ db: Database) throws
        -> [MailRecord]
    {
        guard try db.tableExists("mail_outbox") else { return [] }
        let filter =
            statuses.isEmpty
            ? "" : "WHERE status IN (\(statuses.map { "'\($0.rawValue)'" }.joined(separator: ",")))"
        return try Row.fetchAll(
            db, sql: "SELECT \(columns) FROM mail_outbox \(filter) ORDER BY id DESC LIMIT ?",
            arguments: [limit]
        ).map(mail)
    }
}

/// The mail outbox on the writer's connection (run by the commit stage between commits).
extension SQLiteStore {
    public func mailCursors(rules: [String], startAt: Int64) throws(StoreError) -> [String: Int64] {
        try queue.write(path: path, "cannot read the mail rules") { db in
            var out: [String: Int64] = [:]
            for name in rules {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO mail_rules (name, cursor) VALUES (?, ?)",
                    arguments: [name, startAt])
                out[name] = try Int64.fetchOne(
                    db, sql: "SELECT cursor FROM mail_rules WHERE name = ?", arguments: [name])
            }
            return out
        }
    }

    public func gatheringMails(rules: [String], nowMs: Int64) throws(StoreError)
        -> [String: GatheringMail]
    {
        try queue.write(path: path, "cannot read the mail outbox") { db in
            var out: [String: GatheringMail] = [:]
            for rule in rules {
                if let r = try Row.fetchOne(
                    db, sql: MailSQL.gathering, arguments: [rule, nowMs])
                {
                    out[rule] = GatheringMail(id: r[0], count: r[1])
                }
            }
            return out
        }
    }

    public func queueMails(_ plan: MailPlan) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot store mails") { db in
            for (rule, c) in plan.cursors {
                try db.execute(
                    sql: "UPDATE mail_rules SET cursor = ? WHERE name = ? AND cursor = ?",
                    arguments: [c.to, rule, c.from])
                if db.changesCount == 0 {
                    throw MailCursorMoved()
                }
            }
            for (id, ids) in plan.appended {
                guard
                    let text = try String.fetchOne(
                        db, sql: "SELECT alert_ids FROM mail_outbox WHERE id = ?", arguments: [id])
                else { continue }
                let joined = (MailRecord.alertIds(text) + ids).map(String.init).joined(
                    separator: ",")
                try db.execute(
                    sql: "UPDATE mail_outbox SET alert_ids = ? WHERE id = ?",
                    arguments: [joined, id])
            }
            for m in plan.new {
                // A report's period is queued once (the unique index).
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO mail_outbox (rule, message_id, alert_ids, created_ms,
                          send_after_ms, next_ms, report, period_from, period_to)
                        VALUES (?,?,?,?,?,?,?,?,?)
                        """,
                    arguments: [
                        m.rule, m.messageId, m.alertIdsText, m.createdMs, m.sendAfterMs, m.nextMs,
                        m.report, m.periodFromMs, m.periodToMs,
                    ])
            }
            return true
        } onCursorMoved: {
            false
        }
    }

    public func claimMails(nowMs: Int64, leaseMs: Int64, limit: Int) throws(StoreError)
        -> [MailRecord]
    {
        try queue.write(path: path, "cannot claim mails") { db in
            let due = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(MailSQL.columns) FROM mail_outbox
                    WHERE status = 'pending' AND next_ms <= ? AND send_after_ms <= ?
                    ORDER BY next_ms, id LIMIT ?
                    """, arguments: [nowMs, nowMs, limit]
            ).map(MailSQL.mail)
            var out: [MailRecord] = []
            for var m in due {
                try db.execute(
                    sql: "UPDATE mail_outbox SET attempts = attempts + 1, next_ms = ? WHERE id = ?",
                    arguments: [nowMs + leaseMs, m.id])
                m.attempts += 1
                m.nextMs = nowMs + leaseMs
                out.append(m)
            }
            return out
        }
    }

    public func recordMail(_ id: Int64, _ outcome: MailOutcome, nowMs: Int64) throws(StoreError) {
        try queue.write(path: path, "cannot record mail \(id)") { db in
            switch outcome {
            case .sent(let refused):
                try db.execute(
                    sql: """
                        UPDATE mail_outbox SET status = 'sent', done_ms = ?, last_error = ?
                        WHERE id = ?
                        """, arguments: [nowMs, refused, id])
            case .failed(let error, let retryAtMs):
                try db.execute(
                    sql: """
                        UPDATE mail_outbox SET next_ms = ?, last_error = ?,
                          status = CASE WHEN attempts >= ? THEN 'refused' ELSE 'pending' END,
                          done_ms = CASE WHEN attempts >= ? THEN ? ELSE NULL END
                        WHERE id = ?
                        """,
                    arguments: [
                        retryAtMs, error, MailRecord.maxAttempts, MailRecord.maxAttempts, nowMs, id,
                    ])
            case .refused(let error):
                try db.execute(
                    sql: """
                        UPDATE mail_outbox SET status = 'refused', done_ms = ?, last_error = ?
                        WHERE id = ?
                        """, arguments: [nowMs, error, id])
            }
        }
    }

    public func pruneMails(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try queue.write(path: path, "cannot prune the mail outbox") { db in
            try db.execute(
                sql: """
                    DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox
                      WHERE status != 'pending' AND done_ms < ? LIMIT ?)
                    """, arguments: [cutoffMs, maxRows])
            return db.changesCount
        }
    }
}

/// Thrown inside `queueMails`'s transaction to roll it back when another
/// writer moved a rule's cursor first.
struct MailCursorMoved: Error {}

extension DatabaseQueue {
    /// `write`, answering `moved()` (the transaction rolled back) when the
    /// body throws `MailCursorMoved`.
    func write<T>(
        path: String, _ action: String, _ body: (Database) throws -> T,
        onCursorMoved moved: () -> T
    ) throws(StoreError) -> T {
        do {
            return try write(body)
        } catch is MailCursorMoved {
            return moved()
        } catch {
            throw StoreError(path: path, action: action, underlying: error)
        }
    }
}
