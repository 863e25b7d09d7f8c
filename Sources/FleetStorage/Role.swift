/// What a user or token may do through the API, each role including the
/// ones below it: a driver sees one vehicle (its position, track and
/// trips) and nothing else; a viewer reads everything (of its groups, when
/// limited to some); an operator also edits devices and acknowledges
/// alerts; an admin also edits fences, users, tokens and webhooks. Stored
/// and shown by its raw value. Only users are drivers, never tokens.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case driver
    case viewer
    case `operator`
    case admin

    private var rank: Int {
        switch self {
        case .driver: 0
        case .viewer: 1
        case .operator: 2
        case .admin: 3
        }
    }

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }
}
