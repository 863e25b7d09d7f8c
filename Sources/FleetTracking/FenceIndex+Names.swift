import FleetGeo

extension FenceIndex {
    /// Names of the fences containing a position, sorted and distinct,
    /// ", " between several; nil when none.
    func names(lat: Double, lon: Double) -> String? {
        let hits = containing(Coordinate(lat: lat, lon: lon))
        guard !hits.isEmpty else { return nil }
        return Set(hits.map { fences[Int($0)].name }).sorted().joined(separator: ", ")
    }

    /// Ids of the fences containing a position, sorted and distinct, ", "
    /// between several; nil when none.
    func ids(lat: Double, lon: Double) -> String? {
        let hits = containing(Coordinate(lat: lat, lon: lon))
        guard !hits.isEmpty else { return nil }
        return Set(hits.map { fences[Int($0)].id }).sorted().joined(separator: ", ")
    }
}
