import FleetGeo

extension FenceIndex {
    /// Names of the fences containing a position, sorted and distinct,
    /// ", " between several; nil when none.
    func names(lat: Double, lon: Double) -> String? {
        listed(containing(Coordinate(lat: lat, lon: lon)), ranks: nameRanks, \.name)
    }

    /// Ids of the fences containing a position, sorted and distinct, ", "
    /// between several; nil when none.
    func ids(lat: Double, lon: Double) -> String? {
        listed(containing(Coordinate(lat: lat, lon: lon)), ranks: idRanks, \.id)
    }

    /// `names(lat:lon:)` and `ids(lat:lon:)` from one look-up.
    func namesAndIds(lat: Double, lon: Double) -> (names: String?, ids: String?) {
        let hits = containing(Coordinate(lat: lat, lon: lon))
        return (listed(hits, ranks: nameRanks, \.name), listed(hits, ranks: idRanks, \.id))
    }

    /// The `label`s of the fences `hits`, in `String` order without
    /// repeats, ", " between them: sorted by their precomputed `ranks`
    /// (a trip starting among 20 fences was a `Set`, a sort and a join of
    /// strings, twice, on the engine's thread).
    private func listed(_ hits: [Int32], ranks: [Int32], _ label: KeyPath<Fence, String>) -> String?
    {
        guard let first = hits.first else { return nil }
        if hits.count == 1 { return fences[Int(first)][keyPath: label] }
        let order = hits.sorted { ranks[Int($0)] < ranks[Int($1)] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hits.count * 16)
        var last: Int32 = -1
        for f in order where ranks[Int(f)] != last {
            if last >= 0 { bytes.append(contentsOf: ", ".utf8) }
            bytes.append(contentsOf: fences[Int(f)][keyPath: label].utf8)
            last = ranks[Int(f)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
