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

    /// No device at all.
    public static let none = DeviceScope.groups([])

    /// The devices both scopes admit. A device and groups meet in `.none`
    /// (the device's group is not known here): the narrower answer.
    public func intersection(_ other: DeviceScope) -> DeviceScope {
        switch (self, other) {
        case (.all, _): other
        case (_, .all): self
        case (.groups(let a), .groups(let b)): .groups(a.filter(b.contains))
        case (.device(let a), .device(let b)): a == b ? self : .none
        default: .none
        }
    }
}
