import Testing

@testable import FleetGeo
@testable import FleetTracking

/// The fences at a point, listed for trips and their alerts
/// (`FenceIndex.names`, `namesAndIds`), against the plain way: the
/// strings in a `Set`, sorted, joined.
@Suite struct FenceNamesTests {
    /// Plain listing, the oracle.
    static func plain(_ labels: [String]) -> String? {
        labels.isEmpty ? nil : Set(labels).sorted().joined(separator: ", ")
    }

    /// Nested squares around (0, 0) with names that repeat, differ only in
    /// case or accents (one "é" composed, one decomposed: equal as `String`s),
    /// and ids in an order unlike their names'.
    @Test func listsLikeASortedSetOfStrings() {
        let names = [
            "Depot", "depot", "Depot", "Zone 10", "Zone 9", "Café", "Cafe\u{301}", "Ärea",
            "area", "", "Depot", "zeta", "Alpha", "Zone 10",
        ]
        var fences: [Fence] = []
        for (i, name) in names.enumerated() {
            let r = 0.5 + Double(i) * 0.25
            fences.append(
                Fence(
                    id: "f\((i * 7) % names.count)-\(i)", name: name,
                    shape: .polygons([box(-r, -r, r, r)])))
        }
        let index = FenceIndex(fences: fences)
        for i in 0...names.count {
            // Between the squares i-1 and i: inside squares i… only.
            let x = i == 0 ? 0.1 : 0.5 + (Double(i) - 0.5) * 0.25
            let inside = fences.indices.filter { $0 >= i }
            let expectNames = Self.plain(inside.map { fences[$0].name })
            let expectIds = Self.plain(inside.map { fences[$0].id })
            #expect(index.names(lat: 0, lon: x) == expectNames, "at \(x)")
            let both = index.namesAndIds(lat: 0, lon: x)
            #expect(both.ids == expectIds, "at \(x)")
            #expect(both.names == expectNames && both.ids == expectIds, "at \(x)")
        }
    }

    /// Fences named by their ids alone: the list of names is the list of
    /// ids, and one string serves as both (its bytes stored once).
    @Test func fencesNamedByTheirIdsShareOneList() {
        let fences = (0..<12).map { i in
            let r = 0.5 + Double(i) * 0.25
            return Fence(
                id: "fence-\(i)", name: "fence-\(i)", shape: .polygons([box(-r, -r, r, r)]))
        }
        let index = FenceIndex(fences: fences)
        #expect(index.namesAreIds)
        let both = index.namesAndIds(lat: 0, lon: 0.1)
        #expect(both.ids == Self.plain(fences.map(\.id)))
        #expect(both.names == both.ids)
        let storage = [both.names, both.ids].map { s in
            s?.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
        }
        #expect(storage[0] != nil && storage[0] == storage[1], "one string, not two equal ones")
        // One fence named otherwise: two lists.
        var named = fences
        named[3] = Fence(id: "fence-3", name: "Depot", shape: fences[3].shape)
        let apart = FenceIndex(fences: named)
        #expect(!apart.namesAreIds)
        let two = apart.namesAndIds(lat: 0, lon: 0.1)
        #expect(two.names == Self.plain(named.map(\.name)) && two.ids == both.ids)
    }

    @Test func ranksFollowStringOrderAndShareEqualStrings() {
        let r = FenceIndex.ranks(of: ["b", "a", "c", "a", "Cafe\u{301}", "Café"])
        #expect(r == [2, 1, 3, 1, 0, 0])
    }
}
