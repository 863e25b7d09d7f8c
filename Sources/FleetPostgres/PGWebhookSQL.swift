import FleetStorage
import Foundation
import PostgresNIO

/// The webhooks' tables, shared by the writer and the readers: the same
/// three as SQLite's (`WebhookSQL` in FleetSQLite): `webhooks` (settings,
/// state, `cursor`: the last alert id put in a batch, `scanned`: the outbox
/// is read up to there), `webhook_outbox` (one row per alert owed to any
/// subscription, written in the alert's own commit, `hooks` listing the
/// subscriptions' ids as `,3,7,`) and `webhook_batches` (one row per
/// request's worth, with its fixed `webhook-id`).
enum PGWebhookSQL {
    static let columns = """
        name, url, secret, types, devices, fences, allow_private, batch_max, timeout_s,
        max_age_h, origin, disabled
        """

    static func subscription(_ r: PGRow) throws -> WebhookSubscription {
        WebhookSubscription(
            name: try r[0], url: try r[1], secret: try r[2], types: list(try r[3]),
            devices: list(try r[4]), fences: list(try r[5]), allowPrivate: try r[6],
            batchMax: Int(try r[7] as Int64), timeoutS: try r[8], maxAgeH: try r[9],
            origin: WebhookSubscription.Origin(rawValue: try r[10]) ?? .api, disabled: try r[11])
    }

    static let batchColumns = """
        id, webhook, message_id, first_alert, last_alert, alerts, oldest_ms, attempts, refusals,
        next_ms, state
        """

    static func batch(_ r: PGRow) throws -> WebhookBatch {
        WebhookBatch(
            id: try r[0], webhook: try r[1], messageId: try r[2], firstAlert: try r[3],
            lastAlert: try r[4], count: Int(try r[5] as Int64), oldestMs: try r[6],
            attempts: Int(try r[7] as Int64), refusals: Int(try r[8] as Int64), nextMs: try r[9],
            state: WebhookBatch.State(rawValue: try r[10]) ?? .pending)
    }

    /// A list column: a JSON array of strings.
    static func list(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    static func text(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }

    /// `,ID,`: how `hooks` names subscription `id`.
    static func tag(_ id: Int64) -> String { ",\(id)," }

    static func all(_ s: PGSession) throws -> [WebhookSubscription] {
        try s.query("SELECT \(columns) FROM webhooks ORDER BY name").map(subscription)
    }

    /// Every subscription with its deliveries' standing.
    static func statuses(_ s: PGSession) throws -> [WebhookStatus] {
        try s.query(
            """
            SELECT \(columns), cursor, delivered, last_error, last_delivery_ms, id
            FROM webhooks ORDER BY name
            """
        ).map { r in
            let sub = try subscription(r)
            let cursor: Int64 = try r[12]
            let tag = Self.tag(try r[16])
            let unbatched: Int64 =
                try s.query(
                    """
                    SELECT count(*) FROM webhook_outbox WHERE alert_id > $1 AND strpos(hooks, $2) > 0
                    """, .of(cursor, tag)
                ).first.map { try $0[0] } ?? 0
            let firstUnbatched: Int64? = try s.query(
                """
                SELECT a.committed_ms FROM webhook_outbox o JOIN alerts a ON a.id = o.alert_id
                WHERE o.alert_id > $1 AND strpos(o.hooks, $2) > 0 ORDER BY o.alert_id LIMIT 1
                """, .of(cursor, tag)
            ).first.map { try $0[0] }
            var byState: [String: (alerts: Int, oldest: Int64?)] = [:]
            for b in try s.query(
                """
                SELECT state, sum(alerts)::bigint, min(oldest_ms) FROM webhook_batches
                WHERE webhook = $1 AND state != 'delivered' GROUP BY state
                """, .of(sub.name))
            {
                byState[try b[0]] = (Int(try b[1] as Int64), try b[2])
            }
            let pendingBatch = byState[WebhookBatch.State.pending.rawValue]
            let oldest = [pendingBatch?.oldest, firstUnbatched].compactMap { $0 }.min()
            return WebhookStatus(
                subscription: sub, delivered: Int(try r[13] as Int64),
                pending: Int(unbatched) + (pendingBatch?.alerts ?? 0),
                oldestPendingMs: oldest, lastError: try r[14], lastDeliveryMs: try r[15],
                refused: byState[WebhookBatch.State.refused.rawValue]?.alerts ?? 0,
                dead: byState[WebhookBatch.State.dead.rawValue]?.alerts ?? 0)
        }
    }

    /// The alerts of `batch`, in id order.
    static func alerts(_ batch: WebhookBatch, _ s: PGSession) throws -> [AlertRecord] {
        try s.query(
            """
            SELECT \(PostgresReader.alertColumns) FROM webhook_outbox o
            JOIN alerts a ON a.id = o.alert_id JOIN devices d ON d.id = a.device_id
            WHERE o.alert_id BETWEEN $1 AND $2
              AND strpos(o.hooks, ',' || (SELECT id FROM webhooks WHERE name = $3) || ',') > 0
            ORDER BY o.alert_id
            """, .of(batch.firstAlert, batch.lastAlert, batch.webhook)
        ).map(PostgresReader.alert)
    }

    /// Re-queues `name`'s refused and dead-lettered batches and enables it
    /// again. Returns the batches re-queued, or nil when there is no such subscription.
    static func retry(_ name: String, nowMs: Int64, _ s: PGSession) throws -> Int? {
        guard try s.run("UPDATE webhooks SET disabled = NULL WHERE name = $1", .of(name)) > 0
        else { return nil }
        return try s.run(
            """
            UPDATE webhook_batches SET state = 'pending', refusals = 0, next_ms = $1, done_ms = NULL,
              oldest_ms = greatest(oldest_ms, $1)
            WHERE webhook = $2 AND state IN ('refused', 'dead')
            """, .of(nowMs, name))
    }

    /// Adds `$2` (`,ID,` or `,ID,ID,`) to alert `$1`'s outbox row.
    static let addOutbox = """
        INSERT INTO webhook_outbox (alert_id, hooks) VALUES ($1, $2)
        ON CONFLICT (alert_id) DO UPDATE SET hooks = webhook_outbox.hooks || substr(excluded.hooks, 2)
        """
}
