/// One change made through the API or `fleetctl`: who, when, what.
public struct AuditRecord: Sendable, Equatable {
    /// Increasing; 0 for an entry not yet stored.
    public var id: Int64
    /// Unix ms.
    public var timeMs: Int64
    /// `user:NAME`, `token:NAME` or `fleetctl:UNIXUSER`.
    public var actor: String
    /// What was done: `device.put`, `device.delete`, `alert.ack`,
    /// `fences.put`, `user.add`, `token.add`, …
    public var action: String
    /// What it was done to (a device id, an alert id, a user name, …).
    public var target: String
    /// More, as short text (the new values), or nil.
    public var detail: String?

    public init(
        id: Int64 = 0, timeMs: Int64, actor: String, action: String, target: String,
        detail: String? = nil
    ) {
        self.id = id
        self.timeMs = timeMs
        self.actor = actor
        self.action = action
        self.target = target
        self.detail = detail
    }
}

/// An audit entry's JSON (`fleetctl audit --json`, add fields, never
/// rename): `id`, `time` (RFC 3339 UTC), `actor`, `action`, `target`, `detail`.
extension AuditRecord: Encodable {
    enum CodingKeys: String, CodingKey { case id, time, actor, action, target, detail }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(RecordCoding.time(timeMs), forKey: .time)
        try c.encode(actor, forKey: .actor)
        try c.encode(action, forKey: .action)
        try c.encode(target, forKey: .target)
        try c.encode(detail, forKey: .detail)
    }
}
