import FleetSimCore
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

    /// `n` points uniform in the box, seeded.
    private static func points(
        _ n: Int, lat: ClosedRange<Double>, lon: ClosedRange<Double>, seed: UInt64
    ) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in
            Coordinate(
                lat: Double.random(in: lat, using: &rng), lon: Double.random(in: lon, using: &rng))
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
        var mismatches: [String] = []
        for p in Self.points(3000, lat: 47.99...48.02, lon: 10.99...11.05, seed: 7) {
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
        var mismatches: [String] = []
        for p in Self.points(2000, lat: 47.99...48.02, lon: 10.99...11.03, seed: 8) {
            agree(circle, p, &mismatches)
            agree(corridor, p, &mismatches)
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// Country outlines: many edges, islands, holes, the antimeridian.
    @Test func naturalEarthCountriesAgreeWithTheFullDistance() throws {
        let fences = FenceIndexPropertyTests.naturalEarth
        try #require(
            fences.count == 177,
            "needs Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson")
        var mismatches: [String] = []
        for (k, f) in fences.enumerated() {
            // Around the country's box, a degree wider on each side.
            let b = f.bounds
            let (lat0, lat1) = (max(-90, b.minY - 1), min(90, b.maxY + 1))
            let (lon0, lon1) = (max(-180, b.minX - 1), min(180, b.maxX + 1))
            guard lat0 < lat1, lon0 < lon1 else { continue }  // a box wholly past ±180
            for p in Self.points(8, lat: lat0...lat1, lon: lon0...lon1, seed: 110 + UInt64(k)) {
                agree(f, p, &mismatches)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// `Ring.near` (runs of edges skipped by their boxes, vertices
    /// projected once) against measuring every edge with
    /// `LocalProjection.squaredDistanceToSegment`, to the bit: at the
    /// nearest edge's own squared distance it is near, one ulp below not.
    /// Random rings of 3–70 edges, some across ±180°, points in and around them.
    @Test func ringsSkipRunsOfEdgesWithoutChangingAnAnswer() {
        var rng = SplitMix64(seed: 91)
        var mismatches: [String] = []
        for k in 0..<400 {
            let lon0 =
                k % 4 == 0
                ? Double.random(in: 179.9...180, using: &rng) * (k % 8 == 0 ? -1 : 1)
                : Double.random(in: -170...170, using: &rng)
            let c = Coordinate(lat: Double.random(in: -70...70, using: &rng), lon: lon0)
            let n = Int.random(in: 3...70, using: &rng)
            let radius = Double.random(in: 0.0005...0.05, using: &rng)
            var positions = (0..<n).map { i -> Coordinate in
                let a = Double(i) / Double(n) * 2 * Double.pi
                let r = radius * Double.random(in: 0.3...1, using: &rng)
                return Coordinate(lat: c.lat + r * sin(a), lon: c.lon + r * cos(a))
            }
            positions.append(positions[0])
            let ring = Ring(positions)
            for _ in 0..<20 {
                let p = Coordinate(
                    lat: c.lat + Double.random(in: -2...2, using: &rng) * radius,
                    lon: c.lon + Double.random(in: -2...2, using: &rng) * radius)
                let proj = LocalProjection(lat0: p.lat, lon0: p.lon)
                var nearest = Double.infinity
                for i in 0..<ring.edgeCount {
                    nearest = min(
                        nearest,
                        proj.squaredDistanceToSegment(
                            lat1: ring.ys[i], lon1: ring.xs[i], lat2: ring.ys[i + 1],
                            lon2: ring.xs[i + 1]))
                }
                for (limit, expected) in [
                    (nearest, true), (nearest.nextDown, false), (nearest * 4, true),
                    (nearest / 4, false), (0, nearest == 0),
                ] where ring.near(proj, within: limit) != expected {
                    mismatches.append("ring \(k) at \(p), limit \(limit) m², nearest \(nearest)")
                }
            }
        }
        let mismatched = mismatches.count
        #expect(mismatched == 0, "\(mismatches.prefix(5))")
    }
}
