/// One request's worth of a subscription's outbox: the alerts with ids
/// `firstAlert…lastAlert` owed to it, under one `webhook-id` fixed when the
/// batch is formed (stored before its first attempt, the same on every
/// retry and after restarts).
public struct WebhookBatch: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Being tried (or waiting for its next try).
        case pending
        /// A 2xx came back.
        case delivered
        /// The receiver answered 4xx (not 410, 429) three times: skipped.
        case refused
        /// Still undelivered `max_age_h` after its oldest alert: given up.
        case dead
    }

    /// Increasing per database.
    public var id: Int64
    public var webhook: String
    /// The Standard Webhooks `webhook-id`: `msg_` and 26 random base-32 characters.
    public var messageId: String
    public var firstAlert: Int64
    public var lastAlert: Int64
    /// Alerts in the batch.
    public var count: Int
    /// When its oldest alert was committed, Unix ms.
    public var oldestMs: Int64
    /// Attempts made so far.
    public var attempts: Int
    /// 4xx answers so far (see `State.refused`).
    public var refusals: Int
    /// Not to be tried before this, Unix ms.
    public var nextMs: Int64
    public var state: State

    public init(
        id: Int64, webhook: String, messageId: String, firstAlert: Int64, lastAlert: Int64,
        count: Int, oldestMs: Int64, attempts: Int = 0, refusals: Int = 0, nextMs: Int64,
        state: State = .pending
    ) {
        self.id = id
        self.webhook = webhook
        self.messageId = messageId
        self.firstAlert = firstAlert
        self.lastAlert = lastAlert
        self.count = count
        self.oldestMs = oldestMs
        self.attempts = attempts
        self.refusals = refusals
        self.nextMs = nextMs
        self.state = state
    }
}

/// What one attempt at a batch came to, as the store records it.
public enum WebhookAttempt: Sendable, Equatable {
    /// 2xx: the batch is delivered.
    case delivered(status: Int)
    /// Failed (no answer, timeout, 5xx, 429, a refused address…): tried
    /// again at `retryAtMs`. `error` is kept as the subscription's last error.
    case failed(error: String, retryAtMs: Int64)
    /// 4xx other than 410 and 429: tried again at `retryAtMs` until the
    /// third, then the batch is refused and the next one goes.
    case refused(status: Int, error: String, retryAtMs: Int64)
    /// 410 Gone: the subscription is disabled; the batch stays pending.
    case gone(error: String)
}

extension WebhookBatch {
    /// A new `webhook-id`: `msg_` and 26 characters of base 32 (Crockford's
    /// alphabet, lower case) from 130 random bits: unique without coordination.
    /// Three draws from the system's generator (a `getrandom(2)` each),
    /// 60 bits of each used, 12 characters a draw: a webhook backlog forms
    /// one per batch on the writer's thread.
    public static func newMessageId() -> String {
        var g = SystemRandomNumberGenerator()
        let words: [UInt64] = [g.next(), g.next(), g.next()]
        var text = "msg_"
        text.unicodeScalars.reserveCapacity(30)
        for i in 0..<26 {
            let digit = Int((words[i / 12] >> UInt64(i % 12 * 5)) & 31)
            text.unicodeScalars.append(Self.base32[digit])
        }
        return text
    }

    private static let base32 = Array("0123456789abcdefghjkmnpqrstvwxyz".unicodeScalars)
}
