/// The webhook outbox (rows written in the alerts' own commit), run by the
/// commit stage between commits: subscriptions, batches with their fixed
/// `webhook-id`, attempts and retention.
public protocol WebhookOutboxStore: AnyObject {
    /// Every subscription, with its state (`disabled`), by name.
    func webhooks() throws(StoreError) -> [WebhookSubscription]

    /// Stores `subscription` (replacing its settings, keeping its outbox)
    /// and records `audit` when given, in one transaction. A new one starts
    /// with the next alert committed; with `since`, it is owed every stored
    /// alert with a greater id that it matches (backfill). Returns true
    /// when it was new.
    func putWebhook(_ subscription: WebhookSubscription, since: Int64?, audit: AuditRecord?)
        throws(StoreError) -> Bool

    /// Deletes a subscription with its outbox (what it was still owed is
    /// dropped) and records `audit` when given. False when there was none.
    func deleteWebhook(_ name: String, audit: AuditRecord?) throws(StoreError) -> Bool

    /// The batch subscription `name` is to be sent next, at `nowMs`: its
    /// oldest pending batch, or a new one formed (and stored, with its
    /// `webhook-id`) of up to `batch_max` alerts owed. Batches whose oldest
    /// alert is older than `max_age_h` are dead-lettered on the way. Nil
    /// when nothing is owed, the subscription is disabled or gone.
    func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch?

    /// Records what an attempt at `batch` came to (see `WebhookAttempt`).
    func recordWebhookAttempt(_ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64)
        throws(StoreError)

    /// Runs `steps` in order, as `recordWebhookAttempt` then (when the step
    /// asks) `nextWebhookBatch` would, and returns each step's next batch
    /// (nil where it asked none or none is owed), in the steps' order.
    /// A backend may run them all in one transaction, so that a webhook
    /// backlog's many small records share their pages and their commit:
    /// then a failure stores none of them, and each caller retries (an
    /// unrecorded attempt leaves its batch pending: it is sent again with
    /// the same `webhook-id`). `webhookStepsOneByOne` is the plain way.
    func webhookSteps(_ steps: [WebhookStep]) throws(StoreError) -> [WebhookBatch?]

    /// Retention: deletes delivered batches (and their outbox rows)
    /// delivered before `cutoffMs`, at most about `maxRows` rows. Returns
    /// outbox rows deleted (a backend's own rows: PostgreSQL keeps one per
    /// alert, SQLite one per run of alerts), 0 when nothing is left to prune.
    func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int
}
