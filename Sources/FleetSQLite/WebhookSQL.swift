import FleetStorage
import Foundation
import GRDB

/// The webhooks' tables (schema v9), shared by the writer and the readers:
/// `webhooks` (one row per subscription: its `id`, never reused, settings,
/// state, `cursor`: the last alert id put in a batch, `scanned`: the outbox
/// is read up to there), `webhook_outbox` (one row per alert owed to any
/// subscription, written in the alert's own commit: `hooks` lists the ids
/// of the subscriptions owed it as `,3,7,`, so that ten subscriptions of
/// every alert cost one row, not ten) and `webhook_batches` (one row per
/// request's worth, with its fixed `webhook-id`: the alerts of the outbox
/// in `first_alert…last_alert` whose `hooks` name the subscription).
enum WebhookSQL {
    static let columns = """
        name, url, secret, types, devices, fences, allow_private, batch_max, timeout_s,
        max_age_h, origin, disabled
        """

    static func subscription(_ r: Row) -> WebhookSubscription {
        WebhookSubscription(
            name: r[0], url: r[1], secret: r[2], types: list(r[3]), devices: list(r[4]),
            fences: list(r[5]), allowPrivate: r[6], batchMax: r[7], timeoutS: r[8],
            maxAgeH: r[9], origin: WebhookSubscription.Origin(rawValue: r[10]) ?? .api,
            disabled: r[11])
    }

    static let batchColumns = """
        id, webhook, message_id, first_alert, last_alert, alerts, oldest_ms, attempts, refusals,
        next_ms, state
        """

    static func batch(_ r: Row) -> WebhookBatch {
        WebhookBatch(
            id: r[0], webhook: r[1], messageId: r[2], firstAlert: r[3], lastAlert: r[4],
            count: r[5], oldestMs: r[6], attempts: r[7], refusals: r[8], nextMs: r[9],
            state: WebhookBatch.State(rawValue: r[10]) ?? .pending)
    }

    /// A list column: a JSON array of strings.
    static func list(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    static func text(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }

    static func all(_ db: Database) throws -> [WebhookSubscription] {
        try Row.fetchAll(db, sql: "SELECT \(columns) FROM webhooks ORDER BY name").map(subscription)
    }

    /// `,ID,`: how `hooks` names subscription `id`.
    static func tag(_ id: Int64) -> String { ",\(id)," }

    /// Every subscription with its deliveries' standing.
    static func statuses(_ db: Database) throws -> [WebhookStatus] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns), cursor, delivered, last_error, last_delivery_ms, id
                FROM webhooks ORDER BY name
                """
        ).map { r in
            let s = subscription(r)
            let cursor: Int64 = r[12]
            let tag = Self.tag(r[16])
            let unbatched =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM webhook_outbox WHERE alert_id > ? AND instr(hooks, ?) > 0",
                    arguments: [cursor, tag]) ?? 0
            let firstUnbatched = try Int64.fetchOne(
                db,
                sql: """
                    SELECT a.committed_ms FROM webhook_outbox o JOIN alerts a ON a.id = o.alert_id
                    WHERE o.alert_id > ? AND instr(o.hooks, ?) > 0 ORDER BY o.alert_id LIMIT 1
                    """, arguments: [cursor, tag])
            var byState: [String: (alerts: Int, oldest: Int64?)] = [:]
            for b in try Row.fetchAll(
                db,
                sql: """
                    SELECT state, sum(alerts), min(oldest_ms) FROM webhook_batches
                    WHERE webhook = ? AND state != 'delivered' GROUP BY state
                    """, arguments: [s.name])
            {
                byState[b[0]] = (b[1], b[2])
            }
            let pendingBatch = byState[WebhookBatch.State.pending.rawValue]
            let oldest = [pendingBatch?.oldest, firstUnbatched].compactMap { $0 }.min()
            return WebhookStatus(
                subscription: s, delivered: r[13], pending: unbatched + (pendingBatch?.alerts ?? 0),
                oldestPendingMs: oldest, lastError: r[14], lastDeliveryMs: r[15],
                refused: byState[WebhookBatch.State.refused.rawValue]?.alerts ?? 0,
                dead: byState[WebhookBatch.State.dead.rawValue]?.alerts ?? 0)
        }
    }

    /// The alerts of `batch`, in id order.
    static func alerts(_ batch: WebhookBatch, columns: String, _ db: Database) throws
        -> [AlertRecord]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM webhook_outbox o
                JOIN alerts a ON a.id = o.alert_id JOIN devices d ON d.id = a.device_id
                WHERE o.alert_id BETWEEN ? AND ?
                  AND instr(o.hooks, ',' || (SELECT id FROM webhooks WHERE name = ?) || ',') > 0
                ORDER BY o.alert_id
                """, arguments: [batch.firstAlert, batch.lastAlert, batch.webhook]
        ).map(SQLiteReader.alert)
    }

    /// Re-queues `name`'s refused and dead-lettered batches and enables it
    /// again. Returns the batches re-queued, or nil when there is no such subscription.
    static func retry(_ name: String, nowMs: Int64, _ db: Database) throws -> Int? {
        try db.execute(sql: "UPDATE webhooks SET disabled = NULL WHERE name = ?", arguments: [name])
        guard db.changesCount > 0 else { return nil }
        try db.execute(
            sql: """
                UPDATE webhook_batches SET state = 'pending', refusals = 0, next_ms = ?, done_ms = NULL,
                  oldest_ms = max(oldest_ms, ?)
                WHERE webhook = ? AND state IN ('refused', 'dead')
                """, arguments: [nowMs, nowMs, name])
        return db.changesCount
    }
}
