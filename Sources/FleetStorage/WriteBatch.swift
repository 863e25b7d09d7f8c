import FleetTracking

/// Everything one group commit writes, in one transaction.
public struct WriteBatch: Sendable {
    public var positions: [PositionRow] = []
    public var alerts: [Alert] = []
    /// New state per device (the last one wins when a device appears twice).
    public var states: [String: DeviceState] = [:]
    /// Trips ended in this batch.
    public var trips: [Trip] = []
    /// Jump suspects confirmed by later fixes: (device, fix time), whose
    /// stored disposition becomes `accepted`.
    public var confirmed: [(device: String, time: Int64)] = []
    /// Trips under way after this batch's fixes, in fix order, for the
    /// devices whose trip moved on: nil when the device's trip ended (or it
    /// stopped driving). Not stored: post-commit sinks read it.
    public var tripsUnderWay: [(device: String, trip: OpenTrip?)] = []
    /// The webhook outbox's rows: runs of consecutive alerts (indices in
    /// `alerts`) owed to the same subscriptions, by name. The commit stage
    /// fills it from the subscriptions in force, so that an alert and what
    /// is owed of it to every subscriber are committed in one transaction.
    /// A storm's alerts are mostly owed alike: a run for a commit's worth,
    /// not a pair for each alert and subscription.
    public var outbox: [(alerts: Range<Int>, webhooks: [String])] = []

    /// Devices this node hands over to another (cluster): their leases are
    /// given up in the same transaction as their states in `states`.
    public var releases: [String] = []

    public init() {}

    /// Empties every part for the batch to be used again. The parts whose
    /// size follows the batch's fixes (positions, trips under way) and its
    /// states keep their room, so they are filled again without new
    /// memory; the others are let go of: their size is an alert storm's
    /// (a storm's batch holds about 20 alerts a fix, megabytes kept for
    /// nothing after it). A part another holder still shares is replaced
    /// by an empty one of the same room.
    public mutating func empty() {
        positions.removeAll(keepingCapacity: true)
        tripsUnderWay.removeAll(keepingCapacity: true)
        states.removeAll(keepingCapacity: true)
        alerts = []
        trips = []
        confirmed = []
        outbox = []
        releases = []
    }

    public var isEmpty: Bool {
        positions.isEmpty && alerts.isEmpty && states.isEmpty && trips.isEmpty && releases.isEmpty
    }
}
