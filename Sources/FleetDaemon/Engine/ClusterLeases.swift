import FleetStorage

/// Cluster: when this node renews its device leases, what it reports with
/// each renewal, and which devices it hands over (see `ClusterMembership`).
///
/// A value the tracking thread owns; its only I/O is the membership's
/// round trips, and time comes in as an argument.
struct ClusterLeases {
    /// A device another node wants is handed over once it has been quiet
    /// here this long (ms): its fixes now go there.
    static let handOverQuietMs: Int64 = 1000

    let membership: any ClusterMembership
    /// When the leases were last renewed (wall clock, Unix ms; 0: never).
    private(set) var lastRenewMs: Int64 = 0
    /// Fixes tracked since the last successful renewal (for the heartbeat's rate).
    private(set) var fixesSinceRenew = 0

    init(_ membership: any ClusterMembership) { self.membership = membership }

    /// What one renewal decided.
    struct Renewal: Equatable {
        /// Devices to hand over now: wanted by another node and quiet here
        /// for `handOverQuietMs` (or not tracked here at all). Their state
        /// is written and their lease given up in the same commit.
        var handOver: [String]
        /// Every device still held after a renewal that had lapsed (leases
        /// may have expired meanwhile); nil when all are still held.
        var held: Set<String>?
    }

    /// Counts fixes tracked (for the next heartbeat's rate).
    mutating func tracked(_ fixes: Int) { fixesSinceRenew += fixes }

    /// Renews the leases when a fifth of a lease has passed since the last
    /// renewal (nil otherwise), reporting `devices` tracked and the rate of
    /// fixes since then. `heardMs` answers when a device was last heard
    /// here (nil: not tracked here).
    ///
    /// Throws what the membership throws; the attempt still counts as the
    /// last renewal (the next comes a fifth of a lease later, not at once)
    /// and the fixes counted are kept for it.
    mutating func renewIfDue(
        nowMs: Int64, devices: Int, heardMs: (String) -> Int64?
    ) throws(StoreError) -> Renewal? {
        guard nowMs - lastRenewMs >= membership.leaseMs / 5 else { return nil }
        let seconds = lastRenewMs == 0 ? 1 : Double(nowMs - lastRenewMs) / 1000
        lastRenewMs = nowMs
        let answer = try membership.renew(
            devices: devices, fixesPerSecond: Double(fixesSinceRenew) / max(seconds, 0.001))
        fixesSinceRenew = 0
        let handOver = answer.wanted.filter { device in
            guard let heard = heardMs(device) else { return true }
            return nowMs - heard >= Self.handOverQuietMs
        }
        return Renewal(handOver: handOver, held: answer.held)
    }

    /// Takes the leases of `devices` (not tracked here yet); returns what
    /// to resume each one taken from. A device another node holds is left
    /// out: its fixes are not tracked here.
    func acquire(_ devices: Set<String>) throws(StoreError) -> [String: ClusterResume] {
        guard !devices.isEmpty else { return [:] }
        return try membership.acquire(devices.sorted())
    }
}
