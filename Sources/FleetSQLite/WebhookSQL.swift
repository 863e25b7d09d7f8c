import FleetStorage
import Foundation
import GRDB

/// The webhooks' tables (schema v9, the outbox in runs since v20), shared
/// by the writer and the readers: `webhooks` (one row per subscription:
/// its `id`, never reused, settings, state, `cursor`: the last alert id put
/// in a batch, `scanned`: the outbox is read up to there), `webhook_runs`
/// (the outbox: one row per run of consecutive alert ids owed to the same
/// subscriptions, written in the alerts' own commit: `hooks` lists the ids
/// of the subscriptions owed them as `,3,7,`, so that a storm's thousands
/// of alerts a commit, owed to ten subscriptions, cost one row, not
/// thousands or ten thousands) and `webhook_batches` (one row per
/// request's worth, with its fixed `webhook-id`: the alerts in
/// `first_alert…last_alert` of the runs whose `hooks` name the subscription).
///
/// A subscription's runs never overlap: a commit writes at most one run
/// per alert, and a subscription made with a backfill (a new id) gets runs
/// of its own. Runs of different subscriptions may overlap (a backfill's).
/// A run holds at most `maxRun` alerts, so the runs that reach into an id
/// range are found through `webhook_runs_by_last` with a bounded scan.
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

    /// Schema v20: the outbox in runs (the per-alert rows of v9 become runs
    /// of one alert each).
    static let runsSchema = """
        CREATE TABLE webhook_runs (
            first_alert INTEGER NOT NULL,
            last_alert INTEGER NOT NULL,
            hooks TEXT NOT NULL
        );
        INSERT INTO webhook_runs (first_alert, last_alert, hooks)
            SELECT alert_id, alert_id, hooks FROM webhook_outbox ORDER BY alert_id;
        DROP TABLE webhook_outbox;
        CREATE INDEX webhook_runs_by_last ON webhook_runs(last_alert);
        """

    /// Most alerts in one run (longer ones are stored as several): a run
    /// reaching into `a…b` ends in `a…b + maxRun - 1`.
    static let maxRun: Int64 = 4096

    /// Adds a run: `?1…?2` owed to the subscriptions `?3` lists.
    static let addRun =
        "INSERT INTO webhook_runs (first_alert, last_alert, hooks) VALUES (?1, ?2, ?3)"

    /// The runs owed to the subscription `tag` names that end after
    /// `after`, in id order (`?1`: after, `?2`: tag).
    static let runsAfter = """
        SELECT first_alert, last_alert FROM webhook_runs
        WHERE last_alert > ?1 AND instr(hooks, ?2) > 0 ORDER BY last_alert
        """

    /// Gathers increasing alert ids into runs of consecutive ids, each at
    /// most `maxRun` long (the commit's outbox and a backfill).
    struct RunGatherer {
        /// The run being gathered (the last one, once every id is added).
        private(set) var run: ClosedRange<Int64>?

        /// Adds `id` (above every id added before); returns the run it
        /// closed, if it starts a new one.
        mutating func add(_ id: Int64) -> ClosedRange<Int64>? {
            if let r = run, id == r.upperBound + 1, id - r.lowerBound < maxRun {
                run = r.lowerBound...id
                return nil
            }
            defer { run = id...id }
            return run
        }
    }

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
            // Owed and not yet in a batch: the runs after the cursor (a
            // storm's alerts are a few runs a commit, so this reads few rows).
            var unbatched = 0
            var firstUnbatched: Int64?
            let runs = try Row.fetchCursor(db, sql: runsAfter, arguments: [cursor, tag])
            while let run = try runs.next() {
                let first = max(run[0] as Int64, cursor + 1)
                let last: Int64 = run[1]
                if firstUnbatched == nil {
                    firstUnbatched = try Int64.fetchOne(
                        db,
                        sql:
                            "SELECT committed_ms FROM alerts WHERE id BETWEEN ? AND ? ORDER BY id LIMIT 1",
                        arguments: [first, last])
                }
                unbatched += Int(last - first + 1)
            }
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
                SELECT \(columns) FROM webhook_runs o
                JOIN alerts a ON a.id BETWEEN max(o.first_alert, ?1) AND min(o.last_alert, ?2)
                JOIN devices d ON d.id = a.device_id
                WHERE o.last_alert BETWEEN ?1 AND ?2 + ?4 - 1 AND o.first_alert <= ?2
                  AND instr(o.hooks, ',' || (SELECT id FROM webhooks WHERE name = ?3) || ',') > 0
                ORDER BY a.id
                """, arguments: [batch.firstAlert, batch.lastAlert, batch.webhook, maxRun]
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
