/// `[cluster]`: this fleetd as one node of several sharing one PostgreSQL
/// database (`[storage] backend = "postgresql"`).
public struct ClusterConfig: Sendable, Equatable {
    /// The node's name, unique among the nodes (letters, digits, `-`, `_`,
    /// `.`; at most 63). Empty: not a cluster (this fleetd tracks every device).
    public var node = ""
    /// A device lease lasts this many seconds unless renewed (renewed every
    /// `lease_s / 5`): a node that dies loses its devices this long after
    /// its last renewal.
    public var leaseS = 10.0

    public init() {}

    var enabled: Bool { !node.isEmpty }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        node = try s.string("node", default: node)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        if node.count > 63 || !node.allSatisfy(allowed.contains) {
            throw s.error(
                "node", "must be at most 63 letters, digits, '-', '_' or '.', found \"\(node)\"")
        }
        leaseS = try s.double("lease_s", default: leaseS, range: 2...300)
    }
}
