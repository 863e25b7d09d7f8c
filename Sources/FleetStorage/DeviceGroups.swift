import Synchronization

/// Each grouped device's group, in memory, for what cannot ask the store
/// per event: the event stream's filter of users limited to groups, and
/// the tracking stage's alerts of fences limited to groups. Read whole from
/// the store at start and every `refreshS` seconds while anything needs it
/// (so a change `fleetctl` makes beside the daemon arrives within that),
/// and changed at once by the API's own edits. Thread-safe.
public final class DeviceGroups: Sendable {
    /// Seconds between two reads of the store.
    public static let refreshS = 10.0

    /// Each device's group, and when the store was last read.
    private let state = Mutex<(groups: [String: String], loaded: ContinuousClock.Instant?)>(
        ([:], nil))
    private let fencesNeed = Atomic<Bool>(false)

    public init() {}

    /// Replaces everything (a read of the store).
    public func load(_ all: [String: String]) { state.withLock { $0 = (all, .now) } }

    /// Not read from the store within `refreshS`.
    public var stale: Bool {
        state.withLock { $0.loaded.map { $0.duration(to: .now) > .seconds(Self.refreshS) } ?? true }
    }

    /// Whether the loaded fences need the groups (some are limited to groups).
    public var neededByFences: Bool {
        get { fencesNeed.load(ordering: .relaxed) }
        set { fencesNeed.store(newValue, ordering: .relaxed) }
    }

    /// `device`'s group now (nil: none).
    public func set(_ device: String, group: String?) {
        state.withLock { $0.groups[device] = group }
    }

    /// `device`'s group as known now (nil: none).
    public func group(of device: String) -> String? { state.withLock { $0.groups[device] } }

    /// Whether `device` is in `scope`.
    public func admits(_ scope: DeviceScope, device: String) -> Bool {
        guard case .groups = scope else { return scope.admits(device: device, group: nil) }
        return scope.admits(device: device, group: group(of: device))
    }
}
