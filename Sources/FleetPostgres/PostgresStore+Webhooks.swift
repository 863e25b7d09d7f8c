import FleetModel
import FleetStorage
import Foundation
import PostgresNIO

/// Webhook subscriptions and their outbox on the writer's connection (the
/// commit stage runs these between commits), as `SQLiteStore` has them.
/// Forming a batch locks the subscription's row (`FOR UPDATE`), so two
/// nodes never form the same batch; a batch handed out is claimed by this
/// process (`claimed_by`) for its timeout and 30 s more, so that of several
/// nodes one sends a subscription's requests, one at a time, and another
/// takes over once a dead node's claim has run out.
extension PostgresStore {
    public func webhooks() throws(StoreError) -> [WebhookSubscription] {
        try link.session("cannot read webhooks") { s in try PGWebhookSQL.all(s) }
    }

    public func putWebhook(_ w: WebhookSubscription, since: Int64?, audit: AuditRecord?)
        throws(StoreError) -> Bool
    {
        try link.transaction("cannot store webhook \(w.name)") { s in
            // One statement, so that nodes storing the config's subscriptions
            // at the same start-up do not collide: `xmax = 0` marks a row
            // this statement inserted rather than updated.
            let created: Bool =
                try s.query(
                    """
                    INSERT INTO webhooks (url, secret, types, devices, fences, allow_private,
                      batch_max, timeout_s, max_age_h, origin, name, created_ms)
                    VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
                    ON CONFLICT (name) DO UPDATE SET url = excluded.url, secret = excluded.secret,
                      types = excluded.types, devices = excluded.devices, fences = excluded.fences,
                      allow_private = excluded.allow_private, batch_max = excluded.batch_max,
                      timeout_s = excluded.timeout_s, max_age_h = excluded.max_age_h,
                      origin = excluded.origin
                    RETURNING xmax = 0
                    """,
                    .of(
                        w.url, w.secret, PGWebhookSQL.text(w.types), PGWebhookSQL.text(w.devices),
                        PGWebhookSQL.text(w.fences), w.allowPrivate, w.batchMax, w.timeoutS,
                        w.maxAgeH, w.origin.rawValue, w.name,
                        WallClock.system.nowMs())
                ).first.map { try $0[0] } ?? false
            if created {
                webhookIds[w.name] = nil
                if let since { try backfill(w, after: since, s) }
            }
            if let audit { try PGAdminSQL.record(audit, s) }
            return created
        }
    }

    /// Owes `w` every stored alert after id `after` that it matches.
    private func backfill(_ w: WebhookSubscription, after: Int64, _ s: PGSession) throws {
        let matcher = WebhookMatcher(w)
        let id: Int64 =
            try s.query("SELECT id FROM webhooks WHERE name = $1", .of(w.name)).first.map {
                try $0[0]
            } ?? 0
        let rows = try s.query(
            """
            SELECT a.id, a.type, d.ident, a.fence FROM alerts a JOIN devices d ON d.id = a.device_id
            WHERE a.id > $1 ORDER BY a.id
            """, .of(after))
        for r in rows where matcher.matches(type: try r[1], device: try r[2], fence: try r[3]) {
            try s.run(PGWebhookSQL.addOutbox, .of(try r[0] as Int64, PGWebhookSQL.tag(id)))
        }
    }

    /// The commit's outbox rows: for each alert owed to any subscription,
    /// one row naming their ids.
    func insertOutbox(
        _ outbox: [(alerts: Range<Int>, webhooks: [String])], _ committed: [AlertRecord],
        _ s: PGSession
    ) throws {
        for run in outbox {
            var tags = ","
            for name in run.webhooks { tags += "\(try webhookId(name, s))," }
            guard tags.count > 1 else { continue }
            for alert in run.alerts where committed.indices.contains(alert) {
                try s.run(PGWebhookSQL.addOutbox, .of(committed[alert].id, tags))
            }
        }
    }

    /// A subscription's id (ids are never reused; a name gone is 0, owed nothing).
    private func webhookId(_ name: String, _ s: PGSession) throws -> Int64 {
        if let id = webhookIds[name] { return id }
        let id: Int64 =
            try s.query("SELECT id FROM webhooks WHERE name = $1", .of(name)).first.map {
                try $0[0]
            } ?? 0
        webhookIds[name] = id
        return id
    }

    public func deleteWebhook(_ name: String, audit: AuditRecord?) throws(StoreError) -> Bool {
        try link.transaction("cannot delete webhook \(name)") { s in
            guard try s.run("DELETE FROM webhooks WHERE name = $1", .of(name)) > 0 else {
                return false
            }
            webhookIds[name] = nil
            try s.run("DELETE FROM webhook_batches WHERE webhook = $1", .of(name))
            if let audit { try PGAdminSQL.record(audit, s) }
            return true
        }
    }

    public func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch? {
        try link.transaction("cannot form a batch for webhook \(name)") { s in
            guard
                let w = try s.query(
                    """
                    SELECT batch_max, max_age_h, disabled, cursor, scanned, id, timeout_s
                    FROM webhooks WHERE name = $1 FOR UPDATE
                    """, .of(name)
                ).first
            else { return nil }
            let disabled: String? = try w[2]
            guard disabled == nil else { return nil }
            let batchMax: Int64 = try w[0]
            let maxAgeH: Double = try w[1]
            var cursor: Int64 = try w[3]
            var scanned: Int64 = try w[4]
            let tag = PGWebhookSQL.tag(try w[5])
            let cutoff = nowMs - Int64(maxAgeH * 3_600_000)
            let claimMs = Int64((try w[6] as Double) * 1000) + 30_000
            // Bounded: a call dead-letters at most this many batches.
            for _ in 0..<1000 {
                if let r = try s.query(
                    """
                    SELECT \(PGWebhookSQL.batchColumns), claimed_by, claimed_until_ms
                    FROM webhook_batches
                    WHERE webhook = $1 AND state = 'pending' ORDER BY id LIMIT 1
                    """, .of(name)
                ).first {
                    let b = try PGWebhookSQL.batch(r)
                    let claimedBy: String? = try r[11]
                    let claimedUntil: Int64? = try r[12]
                    if let claimedBy, claimedBy != claimant, (claimedUntil ?? 0) > nowMs {
                        return nil  // another node is sending it
                    }
                    guard b.oldestMs < cutoff else {
                        try s.run(
                            """
                            UPDATE webhook_batches SET claimed_by = $1, claimed_until_ms = $2
                            WHERE id = $3
                            """, .of(claimant, nowMs + claimMs, b.id))
                        return b
                    }
                    try s.run(
                        "UPDATE webhook_batches SET state = 'dead', done_ms = $1 WHERE id = $2",
                        .of(nowMs, b.id))
                    continue
                }
                let top: Int64 =
                    try s.query("SELECT coalesce(max(alert_id), 0) FROM webhook_outbox").first.map {
                        try $0[0]
                    } ?? 0
                let from = max(cursor, scanned)
                let ids = try s.query(
                    """
                    SELECT alert_id FROM webhook_outbox
                    WHERE alert_id > $1 AND alert_id <= $2 AND strpos(hooks, $3) > 0
                    ORDER BY alert_id LIMIT $4
                    """, .of(from, top, tag, batchMax)
                ).map { r -> Int64 in try r[0] }
                scanned = ids.count < batchMax ? top : (ids.last ?? top)
                guard let first = ids.first, let last = ids.last else {
                    try s.run(
                        "UPDATE webhooks SET scanned = $1 WHERE name = $2", .of(scanned, name))
                    return nil
                }
                let oldest: Int64 =
                    try s.query("SELECT committed_ms FROM alerts WHERE id = $1", .of(first)).first
                    .map { try $0[0] } ?? nowMs
                try s.run(
                    """
                    INSERT INTO webhook_batches (webhook, message_id, first_alert, last_alert,
                      alerts, oldest_ms, created_ms, next_ms, state)
                    VALUES ($1,$2,$3,$4,$5,$6,$7,$8, 'pending')
                    """,
                    .of(
                        name, WebhookBatch.newMessageId(), first, last, ids.count, oldest, nowMs,
                        nowMs))
                cursor = last
                try s.run(
                    "UPDATE webhooks SET cursor = $1, scanned = $2 WHERE name = $3",
                    .of(cursor, scanned, name))
            }
            return nil
        }
    }

    /// Who claims the batches this process sends: the node and its
    /// incarnation in a cluster, else one name for the one process.
    var claimant: String {
        cluster.map { "\($0.node)/\($0.incarnation)" } ?? "fleetd"
    }

    public func recordWebhookAttempt(
        _ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64
    ) throws(StoreError) {
        try link.transaction("cannot record a delivery to webhook \(batch.webhook)") { s in
            switch attempt {
            case .delivered:
                let changed = try s.run(
                    """
                    UPDATE webhook_batches SET state = 'delivered', done_ms = $1, attempts = attempts + 1
                    WHERE id = $2 AND state = 'pending'
                    """, .of(nowMs, batch.id))
                guard changed > 0 else { return }
                try s.run(
                    """
                    UPDATE webhooks SET delivered = delivered + $1, last_delivery_ms = $2 WHERE name = $3
                    """, .of(batch.count, nowMs, batch.webhook))
            case .failed(let error, let retryAt):
                try s.run(
                    "UPDATE webhook_batches SET attempts = attempts + 1, next_ms = $1 WHERE id = $2",
                    .of(retryAt, batch.id))
                try lastError(error, batch.webhook, s)
            case .refused(_, let error, let retryAt):
                try s.run(
                    """
                    UPDATE webhook_batches SET attempts = attempts + 1, refusals = refusals + 1,
                      next_ms = $1,
                      state = CASE WHEN refusals + 1 >= 3 THEN 'refused' ELSE state END,
                      done_ms = CASE WHEN refusals + 1 >= 3 THEN $2 ELSE done_ms END
                    WHERE id = $3 AND state = 'pending'
                    """, .of(retryAt, nowMs, batch.id))
                try lastError(error, batch.webhook, s)
            case .gone(let error):
                try s.run(
                    "UPDATE webhook_batches SET attempts = attempts + 1 WHERE id = $1",
                    .of(batch.id))
                try s.run(
                    "UPDATE webhooks SET disabled = $1 WHERE name = $2", .of(error, batch.webhook))
                try lastError(error, batch.webhook, s)
            }
        }
    }

    private func lastError(_ error: String, _ name: String, _ s: PGSession) throws {
        try s.run("UPDATE webhooks SET last_error = $1 WHERE name = $2", .of(error, name))
    }

    /// One by one, each step in its own transactions: a subscription's row
    /// is locked (`FOR UPDATE`) while its batch is formed, and one
    /// transaction holding several nodes' subscriptions could deadlock.
    public func webhookSteps(_ steps: [WebhookStep]) throws(StoreError) -> [WebhookBatch?] {
        try webhookStepsOneByOne(steps)
    }

    public func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        try link.transaction("webhook retention failed") { s in
            try s.run(
                "DELETE FROM webhook_batches WHERE state = 'delivered' AND done_ms < $1",
                .of(cutoffMs))
            // Outbox rows go once no subscription may still need them: before
            // every subscription's cursor and every batch not delivered, and
            // their alert committed before the cutoff.
            let bound: Int64 =
                try s.query(
                    """
                    SELECT least(
                      coalesce((SELECT id FROM alerts WHERE committed_ms < $1 ORDER BY id DESC LIMIT 1), 0),
                      coalesce((SELECT min(cursor) FROM webhooks), 9223372036854775807),
                      coalesce((SELECT min(first_alert) - 1 FROM webhook_batches WHERE state != 'delivered'),
                               9223372036854775807))
                    """, .of(cutoffMs)
                ).first.map { try $0[0] } ?? 0
            return try s.run(
                """
                DELETE FROM webhook_outbox WHERE alert_id IN
                  (SELECT alert_id FROM webhook_outbox WHERE alert_id <= $1 ORDER BY alert_id LIMIT $2)
                """, .of(bound, maxRows))
        }
    }
}
