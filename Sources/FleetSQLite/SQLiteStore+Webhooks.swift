import FleetModel
import FleetStorage
import Foundation
import GRDB
import GRDBSQLite

/// Webhook subscriptions and their outbox on the writer's connection (the
/// commit stage runs these between commits). The outbox runs themselves
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

    /// Owes `s` every stored alert after id `after` that it matches: runs
    /// of its own (its id is new, so they overlap none of its others).
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
        let tag = WebhookSQL.tag(id)
        let insert = try db.makeStatement(sql: WebhookSQL.addRun)
        func add(_ run: ClosedRange<Int64>?) throws {
            guard let run else { return }
            try insert.execute(arguments: [run.lowerBound, run.upperBound, tag])
        }
        var gather = WebhookSQL.RunGatherer()
        while let r = try rows.next() {
            guard matcher.matches(type: r[1], device: r[2], fence: r[3]) else { continue }
            try add(gather.add(r[0]))
        }
        try add(gather.run)
    }

    /// The commit's outbox: for each run of alerts owed alike, one row per
    /// stretch of consecutive ids (a commit's alerts have consecutive ids:
    /// one writer), at most `WebhookSQL.maxRun` long, naming the
    /// subscriptions. Bound by hand: every commit of a storm writes these.
    func insertOutbox(
        _ outbox: [(alerts: Range<Int>, webhooks: [String])], _ committed: [AlertRecord],
        _ db: Database
    ) throws {
        let insert = try db.cachedStatement(sql: WebhookSQL.addRun).sqliteStatement
        for run in outbox {
            var tags = ","
            for name in run.webhooks { tags += "\(try webhookId(name, db))," }
            guard tags.count > 1 else { continue }
            // Bindings outlive `sqlite3_reset`: the list is bound once a run.
            bindText(insert, 3, tags)
            func add(_ ids: ClosedRange<Int64>?) throws {
                guard let ids else { return }
                sqlite3_bind_int64(insert, 1, ids.lowerBound)
                sqlite3_bind_int64(insert, 2, ids.upperBound)
                try step(insert, db)
            }
            var gather = WebhookSQL.RunGatherer()
            for k in run.alerts.clamped(to: committed.indices) {
                try add(gather.add(committed[k].id))
            }
            try add(gather.run)
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
            // Its id stays in outbox runs, owed to nobody (ids are not reused);
            // retention deletes them.
            webhookIds[name] = nil
            try db.execute(sql: "DELETE FROM webhook_batches WHERE webhook = ?", arguments: [name])
            if let audit { try AdminSQL.record(audit, db) }
            return true
        }
    }

    public func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch? {
        try queue.write(path: path, "cannot form a batch for webhook \(name)") { db in
            try formNext(name, nowMs: nowMs, db)
        }
    }

    public func recordWebhookAttempt(
        _ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64
    ) throws(StoreError) {
        try queue.write(path: path, "cannot record a delivery to webhook \(batch.webhook)") { db in
            try record(batch, attempt, nowMs: nowMs, db)
        }
    }

    /// All the steps in one transaction: a backlog's records and new
    /// batches, several subscriptions' at once, share their pages of
    /// `webhooks` and `webhook_batches` and one commit.
    public func webhookSteps(_ steps: [WebhookStep]) throws(StoreError) -> [WebhookBatch?] {
        guard !steps.isEmpty else { return [] }
        let names = Set(steps.map(\.webhook)).sorted().joined(separator: ", ")
        return try queue.write(path: path, "cannot record deliveries to webhooks \(names)") { db in
            try steps.map { step in
                if let a = step.attempt { try record(a.batch, a.outcome, nowMs: step.nowMs, db) }
                return step.formNext ? try formNext(step.webhook, nowMs: step.nowMs, db) : nil
            }
        }
    }

    /// `nextWebhookBatch` inside the caller's transaction.
    private func formNext(_ name: String, nowMs: Int64, _ db: Database) throws -> WebhookBatch? {
        guard
            let w = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT batch_max, max_age_h, disabled, cursor, scanned, id
                        FROM webhooks WHERE name = ?
                        """),
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
        // only up to `top` and only once (`scanned`): runs after the
        // cursor but before `scanned` were read and hold none.
        let owed = try db.cachedStatement(sql: WebhookSQL.runsAfter)
        // Bounded: a call dead-letters at most this many batches.
        for _ in 0..<1000 {
            if let b = try Row.fetchOne(open, arguments: [name]).map(WebhookSQL.batch) {
                guard b.oldestMs < cutoff else { return b }
                try Self.execute(
                    db,
                    sql: "UPDATE webhook_batches SET state = 'dead', done_ms = ? WHERE id = ?",
                    arguments: [nowMs, b.id])
                continue
            }
            let top =
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT max(last_alert) FROM webhook_runs")) ?? 0
            let from = max(cursor, scanned)
            // The first `batchMax` ids owed in `from + 1…top`.
            var first: Int64?
            var last: Int64 = 0
            var count = 0
            let runs = try Row.fetchCursor(owed, arguments: [from, tag])
            while count < batchMax, let run = try runs.next() {
                let lo = max(run[0] as Int64, from + 1)
                let hi = min(run[1] as Int64, top)
                guard lo <= hi else { continue }
                let take = min(Int(hi - lo + 1), batchMax - count)
                if first == nil { first = lo }
                last = lo + Int64(take) - 1
                count += take
            }
            scanned = count < batchMax ? top : last
            guard let first else {
                try Self.execute(
                    db,
                    sql: "UPDATE webhooks SET scanned = ? WHERE name = ?",
                    arguments: [scanned, name])
                return nil
            }
            let oldest =
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT committed_ms FROM alerts WHERE id = ?"),
                    arguments: [first])
                ?? nowMs
            let messageId = WebhookBatch.newMessageId()
            try Self.execute(
                db,
                sql: """
                    INSERT INTO webhook_batches (webhook, message_id, first_alert, last_alert,
                      alerts, oldest_ms, created_ms, next_ms, state)
                    VALUES (?,?,?,?,?,?,?,?, 'pending')
                    """,
                arguments: [name, messageId, first, last, count, oldest, nowMs, nowMs])
            let id = db.lastInsertedRowID
            cursor = last
            try Self.execute(
                db,
                sql: "UPDATE webhooks SET cursor = ?, scanned = ? WHERE name = ?",
                arguments: [cursor, scanned, name])
            // The batch just formed, as the next look would read it (unless already too old).
            if oldest >= cutoff {
                return WebhookBatch(
                    id: id, webhook: name, messageId: messageId, firstAlert: first,
                    lastAlert: last, count: count, oldestMs: oldest, nextMs: nowMs)
            }
        }
        return nil
    }

    /// `recordWebhookAttempt` inside the caller's transaction.
    private func record(
        _ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64, _ db: Database
    ) throws {
        switch attempt {
        case .delivered:
            try Self.execute(
                db,
                sql: """
                    UPDATE webhook_batches SET state = 'delivered', done_ms = ?, attempts = attempts + 1
                    WHERE id = ? AND state = 'pending'
                    """, arguments: [nowMs, batch.id])
            guard db.changesCount > 0 else { return }
            try Self.execute(
                db,
                sql: """
                    UPDATE webhooks SET delivered = delivered + ?, last_delivery_ms = ? WHERE name = ?
                    """, arguments: [batch.count, nowMs, batch.webhook])
        case .failed(let error, let retryAt):
            try Self.execute(
                db,
                sql:
                    "UPDATE webhook_batches SET attempts = attempts + 1, next_ms = ? WHERE id = ?",
                arguments: [retryAt, batch.id])
            try lastError(error, batch.webhook, db)
        case .refused(_, let error, let retryAt):
            try Self.execute(
                db,
                sql: """
                    UPDATE webhook_batches SET attempts = attempts + 1, refusals = refusals + 1,
                      next_ms = ?,
                      state = CASE WHEN refusals + 1 >= 3 THEN 'refused' ELSE state END,
                      done_ms = CASE WHEN refusals + 1 >= 3 THEN ? ELSE done_ms END
                    WHERE id = ? AND state = 'pending'
                    """, arguments: [retryAt, nowMs, batch.id])
            try lastError(error, batch.webhook, db)
        case .gone(let error):
            try Self.execute(
                db,
                sql: "UPDATE webhook_batches SET attempts = attempts + 1 WHERE id = ?",
                arguments: [batch.id])
            try Self.execute(
                db,
                sql: "UPDATE webhooks SET disabled = ? WHERE name = ?",
                arguments: [error, batch.webhook])
            try lastError(error, batch.webhook, db)
        }
    }

    /// One statement through the connection's cache: a webhook backlog
    /// runs these for every batch.
    private static func execute(
        _ db: Database, sql: String, arguments: StatementArguments
    ) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    private func lastError(_ error: String, _ name: String, _ db: Database) throws {
        try Self.execute(
            db,
            sql: "UPDATE webhooks SET last_error = ? WHERE name = ?", arguments: [error, name])
    }

    public func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try queue.write(path: path, "webhook retention failed") { db in
            try db.execute(
                sql: "DELETE FROM webhook_batches WHERE state = 'delivered' AND done_ms < ?",
                arguments: [cutoffMs])
            // Outbox runs go once no subscription may still need them: before
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
                    DELETE FROM webhook_runs WHERE rowid IN
                      (SELECT rowid FROM webhook_runs WHERE last_alert <= ? ORDER BY last_alert LIMIT ?)
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
