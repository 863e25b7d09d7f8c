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

    @Test func ranksFollowStringOrderAndShareEqualStrings() {
        let r = FenceIndex.ranks(of: ["b", "a", "c", "a", "Cafe\u{301}", "Café"])
        #expect(r == [2, 1, 3, 1, 0, 0])
    }
}
