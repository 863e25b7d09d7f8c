import FleetModel
import FleetTracking

/// Device ownership among the fleetd nodes that share one database: a
/// node tracks a device only while it holds the device's lease. One
/// implementation per shared backend (`PostgresCluster` in FleetPostgres);
/// a store for one node (SQLite) has none.
///
/// Leases expire unless renewed (`renew`, every few seconds): a node that
/// dies loses its devices after one lease period, and the nodes that then
/// receive their fixes take them over with the state stored for them.
/// Used by the tracking thread only (its calls are short round trips).
public protocol ClusterMembership: AnyObject, Sendable {
    /// This node's name (`[cluster] node`).
    var node: String { get }
    /// How long a lease lasts unless renewed, ms.
    var leaseMs: Int64 { get }

    /// Takes the leases of `devices` that are free, expired or already this
    /// process's, and returns for each one taken what to resume it from: its
    /// stored state and the fixes stored after that state's checkpoint (to
    /// run through the tracker), as `Store.forEachFixAfterCheckpoint` gives
    /// them. A device whose lease another live node holds is left out, and
    /// marked wanted by this node, so that its holder hands it over once the
    /// device has gone quiet there.
    func acquire(_ devices: [String]) throws(StoreError) -> [String: ClusterResume]

    /// Renews every lease this process holds and records its heartbeat
    /// (`devices` tracked, `fixesPerSecond` since the last one). Returns the
    /// devices other nodes want, and, when renewal had lapsed long enough
    /// that leases may have expired meanwhile, every device still held
    /// (`held`; nil when all are).
    func renew(devices: Int, fixesPerSecond: Double) throws(StoreError) -> (
        wanted: [String], held: Set<String>?
    )

    /// Alerts other nodes committed with id greater than `afterId`, oldest
    /// first, at most `limit`: what this node's live event stream adds to
    /// its own.
    func othersAlerts(afterId: Int64, limit: Int) throws(StoreError) -> [AlertRecord]

    /// Gives up every lease this process holds (a clean stop: the other
    /// nodes may take its devices at once).
    func leave() throws(StoreError)
}

/// What a node resumes a device from when it takes its lease.
public struct ClusterResume: Sendable {
    /// The device's stored state (nil: never stored).
    public var state: DeviceState?
    /// Its fixes stored after `state`'s checkpoint, in fix-time order, late ones left out.
    public var fixes: [Fix]

    public init(state: DeviceState?, fixes: [Fix]) {
        self.state = state
        self.fixes = fixes
    }
}
