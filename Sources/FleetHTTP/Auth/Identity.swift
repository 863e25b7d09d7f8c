import FleetStorage

/// Who a request comes from, once authenticated.
public struct Identity: Sendable, Equatable {
    public enum Kind: String, Sendable { case user, token }
    public let kind: Kind
    public let name: String
    public let role: Role

    /// As the audit log and `acked_by` name it: `user:NAME` or `token:NAME`.
    public var actor: String { "\(kind.rawValue):\(name)" }
}
