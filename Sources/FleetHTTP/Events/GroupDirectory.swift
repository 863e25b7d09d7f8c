import FleetStorage
import Synchronization

/// Each grouped device's group, in memory, for what cannot ask the store
/// per event: the event stream's filter of users limited to groups. Read
/// whole from the store at start and every `refreshS` seconds (so a change
/// `fleetctl` makes beside the daemon reaches open streams within that),
/// and changed at once by the API's own edits.
final class GroupDirectory: Sendable {
    /// Seconds between two reads of the store.
    static let refreshS = 10.0

    private let groups = Mutex<[String: String]>([:])
    private let loaded = Mutex<ContinuousClock.Instant?>(nil)

    /// Replaces everything (a read of the store).
    func load(_ all: [String: String]) {
        groups.withLock { $0 = all }
        loaded.withLock { $0 = .now }
    }

    /// Not read from the store within `refreshS`.
    var stale: Bool {
        loaded.withLock { $0.map { $0.duration(to: .now) > .seconds(Self.refreshS) } ?? true }
    }

    /// `device`'s group now (nil: none).
    func set(_ device: String, group: String?) { groups.withLock { $0[device] = group } }

    /// Whether `device` is in `scope`.
    func admits(_ scope: DeviceScope, device: String) -> Bool {
        switch scope {
        case .all: return true
        case .device(let d): return d == device
        case .groups: return scope.admits(device: device, group: groups.withLock { $0[device] })
        }
    }

    /// The devices of `groups` (sorted names), as known now.
    func devices(in groups: [String]) -> Set<String> {
        let wanted = Set(groups)
        return self.groups.withLock { all in
            Set(all.lazy.filter { wanted.contains($0.value) }.map(\.key))
        }
    }
}
