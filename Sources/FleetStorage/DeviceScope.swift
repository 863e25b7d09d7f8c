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

/// A group's name: 1–64 characters of `[A-Za-z0-9 ._-]`, neither starting
/// nor ending with a space (so that it reads the same on a command line, in
/// a URL's query and in a config file).
public enum GroupName {
    public static let maxLength = 64

    public static func valid(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= maxLength, s.first != " ", s.last != " " else {
            return false
        }
        return s.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x20 || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
    }

    /// Why `s` is not a group name (for errors), or nil when it is one.
    public static func problem(_ s: String) -> String? {
        valid(s)
            ? nil
            : "\"\(s.prefix(40))\" is not a group name (1–64 characters of letters, digits, space, '.', '_', '-'; no space at either end)"
    }
}
