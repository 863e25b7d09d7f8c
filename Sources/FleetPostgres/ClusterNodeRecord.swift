import FleetModel
import FleetStorage

/// One node of a cluster as `fleetctl cluster` shows it: its last
/// heartbeat (renewal), what it said then, and the leases it holds now.
/// Its JSON (`fleetctl cluster --json`) is a contract: fields are added,
/// never renamed.
public struct ClusterNodeRecord: Sendable, Equatable, Encodable {
    public var node: String
    public var incarnation: String
    /// When the process started and last renewed its leases, Unix ms.
    public var startedMs: Int64
    public var heartbeatMs: Int64
    /// Leases it holds now (unexpired).
    public var devices: Int
    /// Fixes it tracked per second between its last two heartbeats.
    public var fixesPerSecond: Double
    /// Milliseconds since its heartbeat, by the database server's clock.
    public var heartbeatAgeMs: Int64

    enum CodingKeys: String, CodingKey {
        case node, incarnation, started, heartbeat, devices
        case fixesPerSecond = "fixes_per_s", heartbeatAgeMs = "heartbeat_age_ms"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(node, forKey: .node)
        try c.encode(incarnation, forKey: .incarnation)
        try c.encode(RFC3339.format(millis: startedMs), forKey: .started)
        try c.encode(RFC3339.format(millis: heartbeatMs), forKey: .heartbeat)
        try c.encode(devices, forKey: .devices)
        try c.encode((fixesPerSecond * 10).rounded() / 10, forKey: .fixesPerSecond)
        try c.encode(heartbeatAgeMs, forKey: .heartbeatAgeMs)
    }
}

extension PostgresReader {
    /// Every node that ever renewed a lease, by name, with the unexpired
    /// leases each holds now.
    public func clusterNodes() throws(StoreError) -> [ClusterNodeRecord] {
        try read("cannot read the cluster's nodes") { s in
            try s.query(
                """
                SELECT n.node, n.incarnation, n.started_ms, n.heartbeat_ms, n.fixes_per_s,
                  (SELECT count(*) FROM device_leases l
                   WHERE l.node = n.node AND l.incarnation = n.incarnation AND l.expires_at > now()),
                  (extract(epoch from now()) * 1000)::bigint - n.heartbeat_ms
                FROM cluster_nodes n ORDER BY n.node
                """
            ).map {
                ClusterNodeRecord(
                    node: try $0[0], incarnation: try $0[1], startedMs: try $0[2],
                    heartbeatMs: try $0[3], devices: Int(try $0[5] as Int64),
                    fixesPerSecond: try $0[4], heartbeatAgeMs: try $0[6])
            }
        }
    }
}
