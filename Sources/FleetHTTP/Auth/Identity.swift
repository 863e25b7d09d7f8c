import FleetStorage

/// Who a request comes from, once authenticated.
public struct Identity: Sendable, Equatable {
    public enum Kind: String, Sendable { case user, token }
    public let kind: Kind
    public let name: String
    public let role: Role
    /// The devices it sees: a user's groups or a driver's vehicle; tokens see every device.
    public var scope: DeviceScope = .all

    public init(kind: Kind, name: String, role: Role, scope: DeviceScope = .all) {
        self.kind = kind
        self.name = name
        self.role = role
        self.scope = scope
    }

    /// As the audit log and `acked_by` name it: `user:NAME` or `token:NAME`.
    public var actor: String { "\(kind.rawValue):\(name)" }
}
