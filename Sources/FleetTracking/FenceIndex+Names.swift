import FleetGeo

extension FenceIndex {
    /// Names of the fences containing a position, sorted and distinct,
    /// ", " between several; nil when none.
    func names(lat: Double, lon: Double) -> String? {
        listed(containing(Coordinate(lat: lat, lon: lon)), names: true)
    }

    /// `names(lat:lon:)`, and the fences' ids listed the same way, from one
    /// look-up.
    func namesAndIds(lat: Double, lon: Double) -> (names: String?, ids: String?) {
        let hits = containing(Coordinate(lat: lat, lon: lon))
        let names = listed(hits, names: true)
        // The same text once, not twice: a trip under way holds both for
        // as long as it lasts (100 000 trips starting among 20 fences each:
        // about 15 MB apart).
        if namesAreIds { return (names, names) }
        return (names, listed(hits, names: false))
    }

    /// The names (or, `names` false, the ids) of the fences `hits`, in
    /// `String` order without repeats, ", " between them: sorted by their
    /// precomputed ranks (a trip starting among 20 fences was a `Set`, a sort
    /// and a join of strings, twice, on the engine's thread).
    private func listed(_ hits: [Int32], names: Bool) -> String? {
        guard let first = hits.first else { return nil }
        if hits.count == 1 { return names ? fences[Int(first)].name : fences[Int(first)].id }
        let ranks = names ? nameRanks : idRanks
        let order = hits.sorted { ranks[Int($0)] < ranks[Int($1)] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hits.count * 16)
        var last: Int32 = -1
        for f in order where ranks[Int(f)] != last {
            if last >= 0 { bytes.append(contentsOf: ", ".utf8) }
            let fence = fences[Int(f)]
            bytes.append(contentsOf: (names ? fence.name : fence.id).utf8)
            last = ranks[Int(f)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
