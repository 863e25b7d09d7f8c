/// A person who logs in to the API and the console.
public struct UserRecord: Sendable, Equatable {
    /// 1–64 characters of `[A-Za-z0-9._@-]`.
    public var name: String
    public var role: Role
    /// The password's bcrypt hash (`$2b$…`); the password itself is never stored.
    public var passwordHash: String
    /// Unix ms.
    public var createdMs: Int64

    public init(name: String, role: Role, passwordHash: String, createdMs: Int64) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.createdMs = createdMs
    }

    /// What a user or token name may be.
    public static func validName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64
            && s.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A)
                    || ($0 >= 0x61 && $0 <= 0x7A)
                    || $0 == 0x2E || $0 == 0x5F || $0 == 0x40 || $0 == 0x2D
            }
    }
}

/// A user's JSON (`fleetctl users list --json`): `name`, `role`, `created`
/// (RFC 3339 UTC). The hash is never written.
extension UserRecord: Encodable {
    enum CodingKeys: String, CodingKey { case name, role, created }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(RecordCoding.time(createdMs), forKey: .created)
    }
}
