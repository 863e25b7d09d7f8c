import FleetGeo

/// Whose alerts a fence raises: the fences limited to groups
/// (`Fence.groups`) raise theirs (and an overspeed against their limit)
/// for their groups' vehicles only; every other fence for every vehicle.
/// Built once per set of fences; `admits` answers per alert.
public struct FenceAudience: Sendable {
    /// The limited fences' groups, by fence id.
    private let limited: [String: Set<String>]

    public init(_ fences: [Fence]) {
        var limited: [String: Set<String>] = [:]
        for f in fences { if let g = f.groups { limited[f.id] = g } }
        self.limited = limited
    }

    /// No fence is limited: every alert is admitted.
    public var isEmpty: Bool { limited.isEmpty }

    /// Whether a vehicle of `group` (nil: none) gets `alert`.
    public func admits(_ alert: Alert, group: String?) -> Bool {
        guard let fence = alert.fence, let groups = limited[fence] else { return true }
        return group.map(groups.contains) ?? false
    }
}
