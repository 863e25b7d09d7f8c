/// How a subscription's deliveries stand (`fleetctl webhooks --json`,
/// `GET /api/v1/webhooks`; fields are added, never renamed): `name`,
/// `url`, `origin`, `enabled`, `disabled_reason`, `delivered` (alerts
/// delivered since the subscription was made), `pending` (alerts owed),
/// `oldest_pending` (commit time of the oldest, RFC 3339, or null),
/// `last_error`, `last_delivery`, `refused` and `dead` (alerts in refused
/// and dead-lettered batches), and the settings but the secret.
public struct WebhookStatus: Sendable, Equatable {
    public var subscription: WebhookSubscription
    public var delivered: Int
    public var pending: Int
    /// Commit time of the oldest alert owed, Unix ms.
    public var oldestPendingMs: Int64?
    public var lastError: String?
    public var lastDeliveryMs: Int64?
    public var refused: Int
    public var dead: Int

    public init(
        subscription: WebhookSubscription, delivered: Int = 0, pending: Int = 0,
        oldestPendingMs: Int64? = nil, lastError: String? = nil, lastDeliveryMs: Int64? = nil,
        refused: Int = 0, dead: Int = 0
    ) {
        self.subscription = subscription
        self.delivered = delivered
        self.pending = pending
        self.oldestPendingMs = oldestPendingMs
        self.lastError = lastError
        self.lastDeliveryMs = lastDeliveryMs
        self.refused = refused
        self.dead = dead
    }
}

extension WebhookStatus: Encodable {
    enum CodingKeys: String, CodingKey {
        case name, url, origin, enabled, disabledReason = "disabled_reason", types, devices
        case fences, allowPrivate = "allow_private", batchMax = "batch_max"
        case timeoutS = "timeout_s", maxAgeH = "max_age_h", delivered, pending
        case oldestPending = "oldest_pending", lastError = "last_error"
        case lastDelivery = "last_delivery", refused, dead
    }

    public func encode(to encoder: any Encoder) throws {
        let s = subscription
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(s.name, forKey: .name)
        try c.encode(s.url, forKey: .url)
        try c.encode(s.origin.rawValue, forKey: .origin)
        try c.encode(s.disabled == nil, forKey: .enabled)
        try c.encode(s.disabled, forKey: .disabledReason)
        try c.encode(s.types, forKey: .types)
        try c.encode(s.devices, forKey: .devices)
        try c.encode(s.fences, forKey: .fences)
        try c.encode(s.allowPrivate, forKey: .allowPrivate)
        try c.encode(s.batchMax, forKey: .batchMax)
        try c.encode(s.timeoutS, forKey: .timeoutS)
        try c.encode(s.maxAgeH, forKey: .maxAgeH)
        try c.encode(delivered, forKey: .delivered)
        try c.encode(pending, forKey: .pending)
        try c.encode(oldestPendingMs.map(RecordCoding.time), forKey: .oldestPending)
        try c.encode(lastError, forKey: .lastError)
        try c.encode(lastDeliveryMs.map(RecordCoding.time), forKey: .lastDelivery)
        try c.encode(refused, forKey: .refused)
        try c.encode(dead, forKey: .dead)
    }
}
