import FleetModel

/// A person who logs in to the API and the console.
public struct UserRecord: Sendable, Equatable {
    /// 1–64 characters of `[A-Za-z0-9._@-]`.
    public var name: String
    public var role: Role
    /// The password's bcrypt hash (`$2b$…`); the password itself is never stored.
    public var passwordHash: String
    /// Unix ms.
    public var createdMs: Int64
    /// The groups whose vehicles the user sees (sorted; empty: every
    /// vehicle). Only viewers and operators are limited to groups.
    public var groups: [String] = []
    /// A driver's vehicle (drivers only).
    public var device: String?
    /// Where notification rules that name the user mail them (`MailAddress`); nil: none.
    public var email: String?
    /// A driver's iButton key (16 upper-case hexadecimal digits, as a
    /// Teltonika unit reports it in IO 78): the driver sees the vehicle
    /// that last read it. A driver has a `device` or a `key`.
    public var key: String?

    public init(
        name: String, role: Role, passwordHash: String, createdMs: Int64, groups: [String] = [],
        device: String? = nil, email: String? = nil, key: String? = nil
    ) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.createdMs = createdMs
        self.groups = Array(Set(groups)).sorted()
        self.device = device
        self.email = email
        self.key = key?.uppercased()
    }

    /// Its role, groups and vehicle, as the audit log records a new user.
    public var summary: String {
        "role \(role.rawValue)"
            + (groups.isEmpty ? "" : "; groups " + groups.joined(separator: ", "))
            + (device.map { "; vehicle \($0)" } ?? "") + (key.map { "; key \($0)" } ?? "")
    }

    /// The devices the user sees. A driver found by their key sees
    /// `.device("")` here (none): the vehicle that read the key last is
    /// found where that is known (the daemon's `DriverBoard`).
    public var scope: DeviceScope {
        if role == .driver { return .device(device ?? "") }
        return role == .admin ? .all : .of(groups: groups)
    }

    /// Why this user cannot be stored (for errors), or nil: a driver names
    /// its vehicle, nobody else does; only viewers and operators are limited
    /// to groups; each group is a valid name; at most 100 groups.
    public var problem: String? {
        if role == .driver, device == nil, key == nil {
            return "a driver needs the vehicle they drive (--device) or their iButton key (--key)"
        }
        if role == .driver, device != nil, key != nil {
            return "a driver has a vehicle (--device) or a key (--key), not both"
        }
        if role != .driver, device != nil { return "only a driver has a vehicle (--device)" }
        if role != .driver, key != nil { return "only a driver has an iButton key (--key)" }
        if let k = key, !Self.validKey(k) {
            return "key: \"\(k.prefix(32))\" is not an iButton key (16 hexadecimal digits)"
        }
        if !groups.isEmpty, role == .admin || role == .driver {
            return
                "an \(role.rawValue) is not limited to groups: --group is for viewers and operators"
        }
        if groups.count > 100 { return "at most 100 groups per user" }
        if let e = email, let p = MailAddress.problem(e) { return "email: " + p }
        return groups.lazy.compactMap(GroupName.problem).first
    }

    /// An iButton key: 16 hexadecimal digits.
    public static func validKey(_ s: String) -> Bool {
        s.utf8.count == 16 && s.allSatisfy(\.isHexDigit)
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

/// A user's JSON (`fleetctl users list --json`, add fields, never
/// rename): `name`, `role`, `created` (RFC 3339 UTC), `groups` (empty: every
/// vehicle), `device` (a driver's vehicle, else null), `email` (or null),
/// `key` (a driver's iButton key, else null). The hash is never written.
extension UserRecord: Encodable {
    enum CodingKeys: String, CodingKey { case name, role, created, groups, device, email, key }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(RecordCoding.time(createdMs), forKey: .created)
        try c.encode(groups, forKey: .groups)
        try c.encode(device, forKey: .device)
        try c.encode(email, forKey: .email)
        try c.encode(key, forKey: .key)
    }
}
