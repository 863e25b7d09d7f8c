/// Alerts the hub shed from its queue while it was behind (its rounds
/// starved in a storm, `EventHub`): counted in the compact streams'
/// `skipped`, without rows. How many of them came after a given id is
/// known exactly only at the run's ends; a part is counted as at most the
/// ids it spans.
struct ShedAlerts: Sendable, Equatable {
    private(set) var count = 0
    /// The first and last shed alert's id (0 when none).
    private(set) var firstId: Int64 = 0
    private(set) var lastId: Int64 = 0

    init() {}

    private init(count: Int, firstId: Int64, lastId: Int64) {
        self.count = count
        self.firstId = firstId
        self.lastId = lastId
    }

    /// Alert `id` shed (ids only grow between two rounds).
    mutating func add(_ id: Int64) {
        if count == 0 { firstId = id }
        count += 1
        lastId = max(lastId, id)
    }

    /// Those after alert `id` (a client caught up to it from the database).
    func after(_ id: Int64) -> ShedAlerts {
        guard count > 0, lastId > id else { return ShedAlerts() }
        guard firstId <= id else { return self }
        return ShedAlerts(count: min(count, Int(lastId - id)), firstId: id + 1, lastId: lastId)
    }
}
