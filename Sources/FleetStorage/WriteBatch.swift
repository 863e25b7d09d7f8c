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

    public init() {}

    public var isEmpty: Bool {
        positions.isEmpty && alerts.isEmpty && states.isEmpty && trips.isEmpty
    }
}
