/// Which trips a reader wants; nil fields do not filter.
public struct TripFilter: Sendable, Equatable {
    /// Only this device's trips.
    public var device: String?
    /// Only trips ending at or after this time, Unix ms.
    public var fromMs: Int64?
    /// Only trips starting before this time, Unix ms.
    public var toMs: Int64?
    /// Only trips after this one in the list's order (start time, then id):
    /// the cursor of a paged list.
    public var afterStartMs: Int64?
    public var afterId: Int64?
    /// Only the devices of this scope (a user limited to groups, a driver).
    public var scope: DeviceScope = .all

    public init(device: String? = nil, fromMs: Int64? = nil, toMs: Int64? = nil) {
        self.device = device
        self.fromMs = fromMs
        self.toMs = toMs
    }
}
