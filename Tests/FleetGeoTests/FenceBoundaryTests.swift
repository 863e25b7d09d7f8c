import Foundation
import Testing

@testable import FleetGeo

/// `Fence.boundary(within:of:)` (exit hysteresis' question, answered at the
/// first edge near enough) against the full measure it shortcuts,
/// `distanceToBoundary(p) <= metres`, as the oracle.
@Suite struct FenceBoundaryTests {
    /// Asks both for `p` at margins around the true distance (never at it
    /// exactly: there the square root's rounding decides).
    private func agree(_ f: Fence, _ p: Coordinate, _ mismatches: inout [String]) {
        let d = f.distanceToBoundary(p)
        for m in [0, 1, 25, 250, 5000, d * 0.999_999, d * 1.000_001] {
            let expected = d <= m
            if f.boundary(within: m, of: p) != expected {
                mismatches.append("\(f.id) at \(p), \(m) m: distance \(d)")
            }
        }
    }

    @Test func polygonsWithHolesAgreeWithTheFullDistance() {
        let yard = Fence(
            id: "yard", name: "yard",
            shape: .polygons([
                polygon(
                    [(11.0, 48.0), (11.02, 48.0), (11.02, 48.01), (11.0, 48.01)],
                    holes: [[(11.005, 48.003), (11.01, 48.003), (11.01, 48.006), (11.005, 48.006)]]),
                polygon([(11.03, 48.0), (11.04, 48.0), (11.035, 48.008)]),
            ]))
        var rng = SplitMix(seed: 7)
        var mismatches: [String] = []
        for _ in 0..<3000 {
            let p = Coordinate(
                lat: Double.random(in: 47.99...48.02, using: &rng),
                lon: Double.random(in: 10.99...11.05, using: &rng))
            agree(yard, p, &mismatches)
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func circlesAndCorridorsAgreeWithTheFullDistance() {
        let circle = Fence(
            id: "c", name: "c", shape: .circle(center: Coordinate(lat: 48, lon: 11), radiusM: 500))
        let corridor = Fence(
            id: "r", name: "r",
            shape: .corridor(
                line: [Coordinate(lat: 48, lon: 11), Coordinate(lat: 48.01, lon: 11.02)],
                halfWidthM: 40))
        var rng = SplitMix(seed: 8)
        var mismatches: [String] = []
        for _ in 0..<2000 {
            let p = Coordinate(
                lat: Double.random(in: 47.99...48.02, using: &rng),
                lon: Double.random(in: 10.99...11.03, using: &rng))
            agree(circle, p, &mismatches)
            agree(corridor, p, &mismatches)
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// Country outlines: many edges, islands, holes, the antimeridian.
    @Test func naturalEarthCountriesAgreeWithTheFullDistance() throws {
        let fences = FenceIndexPropertyTests.naturalEarth
        try #require(
            fences.count == 177, "needs ../shared/data/fences/natural_earth_110m_countries.geojson")
        var rng = SplitMix(seed: 110)
        var mismatches: [String] = []
        for f in fences {
            for _ in 0..<8 {
                let b = f.bounds
                let lat = (max(-90, b.minY - 1), min(90, b.maxY + 1))
                let lon = (max(-180, b.minX - 1), min(180, b.maxX + 1))
                guard lat.0 < lat.1, lon.0 < lon.1 else { continue }
                let p = Coordinate(
                    lat: Double.random(in: lat.0...lat.1, using: &rng),
                    lon: Double.random(in: lon.0...lon.1, using: &rng))
                agree(f, p, &mismatches)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
