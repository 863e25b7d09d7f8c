/// Which alerts a reader wants; nil fields do not filter.
public struct AlertFilter: Sendable, Equatable {
    /// Only this device's alerts.
    public var device: String?
    /// Only alerts of this type (`geofence_enter`, …).
    public var type: String?
    /// Only alerts whose time is at or after this, Unix ms.
    public var sinceMs: Int64?
    /// Only alerts about this fence.
    public var fence: String?
    /// Only alerts whose time is before this, Unix ms.
    public var untilMs: Int64?
    /// Only alerts of devices whose id sorts in this range (both ends
    /// included, byte order): a report reads a fleet's alerts a slice of
    /// devices at a time.
    public var devices: ClosedRange<String>?
    /// Only the devices of this scope (a user limited to groups, a driver).
    public var scope: DeviceScope = .all

    public init(
        device: String? = nil, type: String? = nil, sinceMs: Int64? = nil, fence: String? = nil,
        untilMs: Int64? = nil, devices: ClosedRange<String>? = nil
    ) {
        self.devices = devices
        self.untilMs = untilMs
        self.fence = fence
        self.device = device
        self.type = type
        self.sinceMs = sinceMs
    }
}
