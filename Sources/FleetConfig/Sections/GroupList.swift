import FleetModel

/// A table's `groups`: group names (`GroupName`), at most 100.
enum GroupList {
    static func read(_ s: inout ConfigSection, what: String) throws(ConfigError) -> [String] {
        let groups = try s.strings("groups")
        guard groups.count <= 100 else { throw s.error("groups", "at most 100 groups (\(what))") }
        for g in groups {
            if let why = GroupName.problem(g) { throw s.error("groups", "\(why) (\(what))") }
        }
        return groups
    }
}
