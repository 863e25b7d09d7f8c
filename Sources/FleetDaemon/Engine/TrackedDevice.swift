import FleetTracking

/// What the engine keeps per device, in one dictionary entry of its shard
/// (one hash of the device id per fix for all of it).
struct TrackedDevice: Sendable {
    /// The tracker's state (nil until the first fix that set it).
    var state: DeviceState?
    /// Wall-clock time the device was last heard from, Unix ms (for
    /// `device_silent`; the engine's start for devices loaded from the database).
    var heardMs: Int64 = 0
    /// The state changed since it was last written (its device waits in the
    /// engine's checkpoint order).
    var dirty = false
    /// The device's recent fixes, so that one arriving after newer ones is
    /// tracked in its place (`Rewind`; in memory only).
    var rewind: Rewind?
}
