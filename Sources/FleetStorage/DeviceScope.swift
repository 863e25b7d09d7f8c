import FleetModel

/// Which devices a caller may see: every one (admins, users without a
/// group limit, tokens), those of some groups (a user limited to groups),
/// or one (a driver). A device outside the scope does not exist for the
/// caller: lists leave it out and a request naming it answers 404.
public enum DeviceScope: Sendable, Hashable {
    case all
    /// The devices whose `group` is one of these (sorted, not empty). A
    /// device without a group is in no group.
    case groups([String])
    /// This device only.
    case device(String)

    /// The scope of a user limited to `groups` (none: every device).
    public static func of(groups: [String]) -> DeviceScope {
        groups.isEmpty ? .all : .groups(Array(Set(groups)).sorted())
    }

    /// Whether `device`, whose group is `group`, is in the scope.
    public func admits(device: String, group: String?) -> Bool {
        switch self {
        case .all: true
        case .groups(let gs): group.map(gs.contains) ?? false
        case .device(let d): d == device
        }
    }

    /// True for `.all`.
    public var isAll: Bool { self == .all }
}
