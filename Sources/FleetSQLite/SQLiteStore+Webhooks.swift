import FleetModel
import FleetStorage
import Foundation
import GRDB
import GRDBSQLite

/// Webhook subscriptions and their outbox on the writer's connection (the
/// commit stage runs these between commits). The outbox rows themselves
/// are written by `commit`, with their alerts.
extension SQLiteStore {
    public func webhooks() throws(StoreError) -> [WebhookSubscription] {
        do {
            return try queue.read(WebhookSQL.all)
        } catch {
            throw StoreError(path: path, action: "cannot read webhooks", underlying: error)
        }
    }

    public func putWebhook(_ s: WebhookSubscription, since: Int64?, audit: AuditRecord?)
        throws(StoreError) -> Bool
    {
        try queue.write(path: path, "cannot store webhook \(s.name)") { db in
            let arguments: StatementArguments = [
                s.url, s.secret, WebhookSQL.text(s.types), WebhookSQL.text(s.devices),
                WebhookSQL.text(s.fences), s.allowPrivate, s.batchMax, s.timeoutS, s.maxAgeH,
                s.origin.rawValue, s.name,
            ]
            try db.execute(
                sql: """
                    UPDATE webhooks SET url = ?, secret = ?, types = ?, devices = ?, fences = ?,
                      allow_private = ?, batch_max = ?, timeout_s = ?, max_age_h = ?, origin = ?
                    WHERE name = ?
                    """, arguments: arguments)
            let created = db.changesCount == 0
            if created {
                webhookIds[s.name] = nil
                try db.execute(
                    sql: """
                        INSERT INTO webhooks (url, secret, types, devices, fences, allow_private,
                          batch_max, timeout_s, max_age_h, origin, name, created_ms)
                        VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
                        """,
                    arguments: arguments + [WallClock.system.nowMs()])
                if let since { try backfill(s, after: since, db) }
            }
            if let audit { try AdminSQL.record(audit, db) }
            return created
        }
    }

    /// Owes `s` every stored alert after id `after` that it matches.
    private func backfill(_ s: WebhookSubscription, after: Int64, _ db: Database) throws {
        let matcher = WebhookMatcher(s)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT a.id, a.type, d.ident, a.fence FROM alerts a JOIN devices d ON d.id = a.device_id
                WHERE a.id > ? ORDER BY a.id
                """, arguments: [after])
        let id =
            try Int64.fetchOne(
                db, sql: "SELECT id FROM webhooks WHERE name = ?", arguments: [s.name]) ?? 0
        // Not the commit's statement: that one is bound by hand.
        let insert = try db.makeStatement(sql: Self.addOutbox)
        while let r = try rows.next() {
            if matcher.matches(type: r[1], device: r[2], fence: r[3]) {
                try insert.execute(arguments: [r[0] as Int64, WebhookSQL.tag(id)])
            }
        }
    }

    /// Adds `?2` (`,ID,` or `,ID,ID,`) to alert `?1`'s outbox row.
    static let addOutbox = """
        INSERT INTO webhook_outbox (alert_id, hooks) VALUES (?1, ?2)
        ON CONFLICT(alert_id) DO UPDATE SET hooks = hooks || substr(excluded.hooks, 2)
        """

    /// The commit's outbox rows: for each alert owed to any subscription,
    /// one row naming their ids. A run of alerts owed alike (a storm's
    /// mostly are) binds its list once, and the statement is bound by hand:
    /// a storm writes millions of these.
    func insertOutbox(
        _ outbox: [(alerts: Range<Int>, webhooks: [String])], _ committed: [AlertRecord],
        _ db: Database
    ) throws {
        let insert = try db.cachedStatement(sql: Self.addOutbox).sqliteStatement
        for run in outbox {
            var tags = ","
            for name in run.webhooks { tags += "\(try webhookId(name, db))," }
            guard tags.count > 1 else { continue }
            // Bindings outlive `sqlite3_reset`: the list is bound once a run.
            bindText(insert, 2, tags)
            for alert in run.alerts where committed.indices.contains(alert) {
                sqlite3_bind_int64(insert, 1, committed[alert].id)
                try step(insert, db)
            }
        }
    }

    /// A subscription's id (ids are never reused; a name gone is 0, owed nothing).
    private func webhookId(_ name: String, _ db: Database) throws -> Int64 {
        if let id = webhookIds[name] { return id }
        let id =
            try Int64.fetchOne(db, sql: "SELECT id FROM webhooks WHERE name = ?", arguments: [name])
            ?? 0
        webhookIds[name] = id
        return id
    }

    public func deleteWebhook(_ name: String, audit: AuditRecord?) throws(StoreError) -> Bool {
        try queue.write(path: path, "cannot delete webhook \(name)") { db in
            try db.execute(sql: "DELETE FROM webhooks WHERE name = ?", arguments: [name])
            guard db.changesCount > 0 else { return false }
            // Its id stays in outbox rows, owed to nobody (ids are not reused);
            // retention deletes them.
            webhookIds[name] = nil
            try db.execute(sql: "DELETE FROM webhook_batches WHERE webhook = ?", arguments: [name])
            if let audit { try AdminSQL.record(audit, db) }
            return true
        }
    }

    public func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch? {
        try queue.write(path: path, "cannot form a batch for webhook \(name)") { db in
            guard
                let w = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT batch_max, max_age_h, disabled, cursor, scanned, id
                        FROM webhooks WHERE name = ?
                        """,
                    arguments: [name])
            else { return nil }
            let disabled: String? = w[2]
            guard disabled == nil else { return nil }
            let batchMax: Int = w[0]
            let maxAgeH: Double = w[1]
            var cursor: Int64 = w[3]
            var scanned: Int64 = w[4]
            let tag = WebhookSQL.tag(w[5])
            let cutoff = nowMs - Int64(maxAgeH * 3_600_000)
            let open = try db.cachedStatement(
                sql: """
                    SELECT \(WebhookSQL.batchColumns) FROM webhook_batches
                    WHERE webhook = ? AND state = 'pending' ORDER BY id LIMIT 1
                    """)
            // Up to batch_max ids owed after the cursor, reading the outbox
            // only up to `top` and only once (`scanned`): rows after the
            // cursor but before `scanned` were read and hold none.
            let owed = try db.cachedStatement(
                sql: """
                    SELECT alert_id FROM webhook_outbox
                    WHERE alert_id > ? AND alert_id <= ? AND instr(hooks, ?) > 0
                    ORDER BY alert_id LIMIT ?
                    """)
            // Bounded: a call dead-letters at most this many batches.
            for _ in 0..<1000 {
                if let b = try Row.fetchOne(open, arguments: [name]).map(WebhookSQL.batch) {
                    guard b.oldestMs < cutoff else { return b }
                    try db.execute(
                        sql: "UPDATE webhook_batches SET state = 'dead', done_ms = ? WHERE id = ?",
                        arguments: [nowMs, b.id])
                    continue
                }
                let top =
                    try Int64.fetchOne(db, sql: "SELECT max(alert_id) FROM webhook_outbox") ?? 0
                let from = max(cursor, scanned)
                let ids = try Int64.fetchAll(owed, arguments: [from, top, tag, batchMax])
                scanned = ids.count < batchMax ? top : (ids.last ?? top)
                guard let first = ids.first, let last = ids.last else {
                    try db.execute(
                        sql: "UPDATE webhooks SET scanned = ? WHERE name = ?",
                        arguments: [scanned, name])
                    return nil
                }
                let oldest =
                    try Int64.fetchOne(
                        db, sql: "SELECT committed_ms FROM alerts WHERE id = ?", arguments: [first])
                    ?? nowMs
                try db.execute(
                    sql: """
                        INSERT INTO webhook_batches (webhook, message_id, first_alert, last_alert,
                          alerts, oldest_ms, created_ms, next_ms, state)
                        VALUES (?,?,?,?,?,?,?,?, 'pending')
                        """,
                    arguments: [
                        name, WebhookBatch.newMessageId(), first, last, ids.count, oldest, nowMs,
                        nowMs,
                    ])
                cursor = last
                try db.execute(
                    sql: "UPDATE webhooks SET cursor = ?, scanned = ? WHERE name = ?",
                    arguments: [cursor, scanned, name])
            }
            return nil
        }
    }

    public func recordWebhookAttempt(
        _ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64
    ) throws(StoreError) {
        try queue.write(path: path, "cannot record a delivery to webhook \(batch.webhook)") { db in
            switch attempt {
            case .delivered:
                try db.execute(
                    sql: """
                        UPDATE webhook_batches SET state = 'delivered', done_ms = ?, attempts = attempts + 1
                        WHERE id = ? AND state = 'pending'
                        """, arguments: [nowMs, batch.id])
                guard db.changesCount > 0 else { return }
                try db.execute(
                    sql: """
                        UPDATE webhooks SET delivered = delivered + ?, last_delivery_ms = ? WHERE name = ?
                        """, arguments: [batch.count, nowMs, batch.webhook])
            case .failed(let error, let retryAt):
                try db.execute(
                    sql:
                        "UPDATE webhook_batches SET attempts = attempts + 1, next_ms = ? WHERE id = ?",
                    arguments: [retryAt, batch.id])
                try lastError(error, batch.webhook, db)
            case .refused(_, let error, let retryAt):
                try db.execute(
                    sql: """
                        UPDATE webhook_batches SET attempts = attempts + 1, refusals = refusals + 1,
                          next_ms = ?,
                          state = CASE WHEN refusals + 1 >= 3 THEN 'refused' ELSE state END,
                          done_ms = CASE WHEN refusals + 1 >= 3 THEN ? ELSE done_ms END
                        WHERE id = ? AND state = 'pending'
                        """, arguments: [retryAt, nowMs, batch.id])
                try lastError(error, batch.webhook, db)
            case .gone(let error):
                try db.execute(
                    sql: "UPDATE webhook_batches SET attempts = attempts + 1 WHERE id = ?",
                    arguments: [batch.id])
                try db.execute(
                    sql: "UPDATE webhooks SET disabled = ? WHERE name = ?",
                    arguments: [error, batch.webhook])
                try lastError(error, batch.webhook, db)
            }
        }
    }

    private func lastError(_ error: String, _ name: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE webhooks SET last_error = ? WHERE name = ?", arguments: [error, name])
    }

    public func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try queue.write(path: path, "webhook retention failed") { db in
            try db.execute(
                sql: "DELETE FROM webhook_batches WHERE state = 'delivered' AND done_ms < ?",
                arguments: [cutoffMs])
            // Outbox rows go once no subscription may still need them: before
            // every subscription's cursor and every batch not delivered, and
            // their alert committed before the cutoff.
            let bound =
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT min(
                          coalesce((SELECT id FROM alerts WHERE committed_ms < ?1 ORDER BY id DESC LIMIT 1), 0),
                          coalesce((SELECT min(cursor) FROM webhooks), 9223372036854775807),
                          coalesce((SELECT min(first_alert) - 1 FROM webhook_batches WHERE state != 'delivered'),
                                   9223372036854775807))
                        """, arguments: [cutoffMs]) ?? 0
            try db.execute(
                sql: """
                    DELETE FROM webhook_outbox WHERE alert_id IN
                      (SELECT alert_id FROM webhook_outbox WHERE alert_id <= ? ORDER BY alert_id LIMIT ?)
                    """, arguments: [bound, maxRows])
            return db.changesCount
        }
    }
}

extension SQLiteReader {
    public func webhookAlerts(_ batch: WebhookBatch) throws(StoreError) -> [AlertRecord] {
        guard hasWebhooks else { return [] }
        return try read("cannot read webhook \(batch.webhook)'s alerts") { db in
            try WebhookSQL.alerts(batch, columns: alertColumns, db)
        }
    }

    public func webhookStatuses() throws(StoreError) -> [WebhookStatus] {
        guard hasWebhooks else { return [] }
        return try read("cannot read webhooks", WebhookSQL.statuses)
    }
}

extension Credentials {
    /// `fleetctl webhooks retry`: re-queues `name`'s refused and
    /// dead-lettered batches and enables it again (see `WebhookSQL.retry`),
    /// with `audit`. Returns the batches re-queued, nil when there is no
    /// such subscription.
    public func retryWebhook(_ name: String, audit: AuditRecord) throws(StoreError) -> Int? {
        try queue.write(path: path, "cannot re-queue webhook \(name)") { db in
            let n = try WebhookSQL.retry(name, nowMs: audit.timeMs, db)
            if n != nil { try AdminSQL.record(audit, db) }
            return n
        }
    }
}
