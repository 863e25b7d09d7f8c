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

    private let groups = Mutex<[String: String]>([:])
    private let loaded = Mutex<ContinuousClock.Instant?>(nil)
    private let fencesNeed = Atomic<Bool>(false)

    public init() {}

    /// Replaces everything (a read of the store).
    public func load(_ all: [String: String]) {
        groups.withLock { $0 = all }
        loaded.withLock { $0 = .now }
    }

    /// Not read from the store within `refreshS`.
    public var stale: Bool {
        loaded.withLock { $0.map { $0.duration(to: .now) > .seconds(Self.refreshS) } ?? true }
    }

    /// Whether the loaded fences need the groups (some are limited to groups).
    public var neededByFences: Bool {
        get { fencesNeed.load(ordering: .relaxed) }
        set { fencesNeed.store(newValue, ordering: .relaxed) }
    }

    /// `device`'s group now (nil: none).
    public func set(_ device: String, group: String?) { groups.withLock { $0[device] = group } }

    /// `device`'s group as known now (nil: none).
    public func group(of device: String) -> String? { groups.withLock { $0[device] } }

    /// Whether `device` is in `scope`.
    public func admits(_ scope: DeviceScope, device: String) -> Bool {
        switch scope {
        case .all: return true
        case .device(let d): return d == device
        case .groups: return scope.admits(device: device, group: group(of: device))
        }
    }
}
