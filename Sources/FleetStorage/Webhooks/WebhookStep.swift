/// One subscription's turn at the store's writer: what its last attempt
/// came to (recorded first, when there is one) and whether its next batch
/// is to be found or formed then (`WebhookOutboxStore.webhookSteps`).
public struct WebhookStep: Sendable, Equatable {
    /// The subscription's name.
    public var webhook: String
    /// The attempt to record: its batch and what it came to (nil: none).
    public var attempt: Recorded?
    /// True to return the subscription's next batch after the record, as
    /// `nextWebhookBatch` does; false to return nil.
    public var formNext: Bool
    /// When the step was asked for, Unix ms: the attempt's record time and
    /// the time its next batch is formed at.
    public var nowMs: Int64

    /// An attempt and the batch it was at.
    public struct Recorded: Sendable, Equatable {
        public var batch: WebhookBatch
        public var outcome: WebhookAttempt

        public init(batch: WebhookBatch, outcome: WebhookAttempt) {
            self.batch = batch
            self.outcome = outcome
        }
    }

    public init(webhook: String, attempt: Recorded? = nil, formNext: Bool, nowMs: Int64) {
        self.webhook = webhook
        self.attempt = attempt
        self.formNext = formNext
        self.nowMs = nowMs
    }
}

extension WebhookOutboxStore {
    /// The steps one after another, each in its own transactions: the
    /// default for a backend that has no cheaper way (PostgreSQL, whose
    /// subscriptions' rows are locked per transaction across nodes).
    public func webhookStepsOneByOne(_ steps: [WebhookStep]) throws(StoreError) -> [WebhookBatch?] {
        var formed: [WebhookBatch?] = []
        formed.reserveCapacity(steps.count)
        for step in steps {
            if let a = step.attempt {
                try recordWebhookAttempt(a.batch, a.outcome, nowMs: step.nowMs)
            }
            formed.append(
                step.formNext ? try nextWebhookBatch(step.webhook, nowMs: step.nowMs) : nil)
        }
        return formed
    }
}
