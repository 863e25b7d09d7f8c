/// A link that shows one vehicle to whoever holds it, without a login
/// (`/share/TOKEN`): its position and its trail since the link was made,
/// until it expires or is revoked. The token is a random secret shown once,
/// stored only as its SHA-256 hash.
public struct ShareRecord: Sendable, Equatable {
    /// The store's id (0 before it is stored): how the link is named in
    /// lists and revoked.
    public var id: Int64
    public var device: String
    /// Lower-case hex SHA-256 of the token.
    public var tokenHash: String
    /// Unix ms: made, and when it stops working.
    public var createdMs: Int64
    public var expiresMs: Int64
    /// Who made it (`user:NAME`, `token:NAME`).
    public var createdBy: String
    /// Unix ms it was revoked, or nil.
    public var revokedMs: Int64?

    public init(
        id: Int64 = 0, device: String, tokenHash: String, createdMs: Int64, expiresMs: Int64,
        createdBy: String, revokedMs: Int64? = nil
    ) {
        self.id = id
        self.device = device
        self.tokenHash = tokenHash
        self.createdMs = createdMs
        self.expiresMs = expiresMs
        self.createdBy = createdBy
        self.revokedMs = revokedMs
    }

    /// True when the link works at `nowMs`: not revoked, not expired.
    public func isActive(atMs nowMs: Int64) -> Bool { revokedMs == nil && nowMs < expiresMs }
}

/// A link's JSON (`GET /api/v1/devices/{id}/shares`): `id`, `device`,
/// `created`, `expires`, `created_by`, `revoked` (RFC 3339 UTC or null).
/// The token and its hash are never written.
extension ShareRecord: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, device, created, expires, createdBy = "created_by", revoked
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(device, forKey: .device)
        try c.encode(RecordCoding.time(createdMs), forKey: .created)
        try c.encode(RecordCoding.time(expiresMs), forKey: .expires)
        try c.encode(createdBy, forKey: .createdBy)
        try c.encode(revokedMs.map(RecordCoding.time), forKey: .revoked)
    }
}
