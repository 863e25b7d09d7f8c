/// What a user or token may do through the API, each role including the
/// ones below it: a viewer reads everything; an operator also edits devices
/// and acknowledges alerts; an admin also edits fences, users, tokens and
/// webhooks. Stored and shown by its raw value.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case viewer
    case `operator`
    case admin

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .operator: 1
        case .admin: 2
        }
    }

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }
}
