/// A program's credential: a secret shown once when made, stored only as
/// its SHA-256 hash, sent as `Authorization: Bearer <secret>`.
public struct TokenRecord: Sendable, Equatable {
    /// Same rule as a user's name (`UserRecord.validName`).
    public var name: String
    public var role: Role
    /// Lower-case hex SHA-256 of the secret.
    public var secretHash: String
    /// Unix ms.
    public var createdMs: Int64
    /// Unix ms of the last request it authenticated (written at most every
    /// minute or so), or nil when never used.
    public var lastUsedMs: Int64?

    public init(name: String, role: Role, secretHash: String, createdMs: Int64, lastUsedMs: Int64?)
    {
        self.name = name
        self.role = role
        self.secretHash = secretHash
        self.createdMs = createdMs
        self.lastUsedMs = lastUsedMs
    }
}

/// A token's JSON (`fleetctl tokens list --json`): `name`, `role`,
/// `created`, `last_used` (RFC 3339 UTC or null). The hash is never written.
extension TokenRecord: Encodable {
    enum CodingKeys: String, CodingKey { case name, role, created, lastUsed = "last_used" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(RecordCoding.time(createdMs), forKey: .created)
        try c.encode(lastUsedMs.map(RecordCoding.time), forKey: .lastUsed)
    }
}
