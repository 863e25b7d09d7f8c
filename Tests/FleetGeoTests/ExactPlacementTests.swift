import FleetSimCore
import Foundation
import Testing

@testable import FleetGeo

/// Points a hair's breadth from real boundaries, placed by the exact
/// oracle (`Oracle`: coordinates on a 2⁻⁴⁰° grid, the crossing test in
/// `Int128`), written independently of the library's predicates.
@Suite struct ExactPlacementTests {
    /// Points at 2⁻⁴⁰° … 1e-6° on either side of random edges of every
    /// country, and exactly on edges: the index and `Fence.contains` agree
    /// with the oracle on every one.
    @Test func pointsBesideRealBoundariesArePlacedExactly() throws {
        let fences = FenceIndexPropertyTests.naturalEarthOnGrid
        try #require(
            fences.count == 177,
            "needs Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson")
        let index = FenceIndex(fences: fences)
        var edges: [(fence: Int, x1: Double, y1: Double, x2: Double, y2: Double)] = []
        for (k, f) in fences.enumerated() {
            guard case .polygons(let polys) = f.shape else { continue }
            for poly in polys {
                for r in [poly.shell] + poly.holes {
                    for i in 0..<(r.xs.count - 1) {
                        edges.append((k, r.xs[i], r.ys[i], r.xs[i + 1], r.ys[i + 1]))
                    }
                }
            }
        }
        var rng = SplitMix64(seed: 785)
        var checked = 0
        var near = 0
        var mismatches: [String] = []
        for n in 0..<20_000 {
            let e = edges[Int.random(in: 0..<edges.count, using: &rng)]
            let t = Double.random(in: 0...1, using: &rng)
            let dx = e.x2 - e.x1
            let dy = e.y2 - e.y1
            let len = (dx * dx + dy * dy).squareRoot()
            guard len > 0 else { continue }
            // A tenth of the points exactly on the edge (a vertex, or a grid
            // point the oracle finds on it), the rest 1e-12° … 1e-6° off it.
            let off =
                n % 10 == 0
                ? 0
                : pow(10, Double.random(in: -12 ... -6, using: &rng))
                    * (Bool.random(using: &rng) ? 1 : -1)
            var x = Oracle.snap(e.x1 + t * dx - dy / len * off)
            var y = Oracle.snap(e.y1 + t * dy + dx / len * off)
            if n % 20 == 0 {
                x = e.x1
                y = e.y1
            }
            guard abs(x) < 180, abs(y) < 90 else { continue }
            let p = Coordinate(lat: y, lon: x)
            let got = index.containing(p)
            var want: [Int32] = []
            for k in fences.indices
            where fences[k].bounds.contains(x: x, y: y) && Oracle.contains(fences[k], p) {
                want.append(Int32(k))
            }
            for k in want where !fences[Int(k)].contains(p) {
                mismatches.append("\(fences[Int(k)].id) at (\(x), \(y)): contains says outside")
            }
            if got != want {
                mismatches.append(
                    "(\(x), \(y)) \(off)° from an edge of \(fences[e.fence].id): index \(got.map { fences[Int($0)].id }), oracle \(want.map { fences[Int($0)].id })"
                )
            }
            checked += 1
            if abs(off) < 1e-9 { near += 1 }
        }
        #expect(checked > 16_000)
        #expect(near > 5_000)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(checked): \(mismatches.prefix(5))")
    }

    /// The case that a tolerance band got wrong: a short edge (the kind
    /// natural-earth borders have, 1e-6° long) and a point 1e-8° outside it.
    @Test func aPointJustOutsideAShortEdgeIsOutside() {
        let shell: [(Double, Double)] = [
            (28.0699976, 60.5035165), (28.0700019, 60.5035191), (28.08, 60.6), (28.0, 60.6),
        ]
        let ring = Ring((shell + [shell[0]]).map { Coordinate(lat: $0.1, lon: $0.0) })
        let f = Fence(id: "f", name: "f", shape: .polygons([Polygon(shell: ring, holes: [])]))
        let index = FenceIndex(fences: [f])
        // The edge's midpoint pushed 1e-8° to its right (outside: the ring runs anticlockwise).
        let (x1, y1, x2, y2) = (28.0699976, 60.5035165, 28.0700019, 60.5035191)
        let len = ((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)).squareRoot()
        let out = Coordinate(
            lat: (y1 + y2) / 2 - (x2 - x1) / len * 1e-8, lon: (x1 + x2) / 2 + (y2 - y1) / len * 1e-8
        )
        let inn = Coordinate(
            lat: (y1 + y2) / 2 + (x2 - x1) / len * 1e-8, lon: (x1 + x2) / 2 - (y2 - y1) / len * 1e-8
        )
        #expect(!f.contains(out))
        #expect(index.containing(out).isEmpty)
        #expect(f.contains(inn))
        #expect(index.containing(inn) == [0])
        #expect(f.contains(Coordinate(lat: y2, lon: x2)))  // a vertex: on the boundary, inside
    }

    /// The exact sign against values worked out by hand, where the rounded
    /// determinant is zero or has the wrong sign.
    @Test func orientationIsExactWhereRoundingFails() {
        // Collinear in exact arithmetic (c = a + 3(b − a) on a 2⁻⁴⁰ grid).
        #expect(Orientation.sign(0.5, 0.25, 1.5, 1.75, 3.5, 4.75) == 0)
        // 1 ulp off that line at 60°: the rounded determinant cannot see it.
        let y = 60.0
        #expect(Orientation.sign(28.0, y, 28.0 + 0x1p-30, y + 0x1p-30, 29.0, (y + 1).nextUp) == 1)
        #expect(
            Orientation.sign(28.0, y, 28.0 + 0x1p-30, y + 0x1p-30, 29.0, (y + 1).nextDown) == -1)
        #expect(Orientation.sign(28.0, y, 28.0 + 0x1p-30, y + 0x1p-30, 29.0, y + 1) == 0)
        // Antisymmetric: swapping two points flips the sign.
        var rng = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let a = (Double.random(in: 0...1, using: &rng), Double.random(in: 0...1, using: &rng))
            let t = Double.random(in: -2...2, using: &rng)
            let b = (a.0 + 0x1p-20, a.1 + 0x1p-21)
            let c = (a.0 + t * 0x1p-20, a.1 + t * 0x1p-21)  // nearly collinear, rounded
            let s1 = Orientation.sign(a.0, a.1, b.0, b.1, c.0, c.1)
            #expect(Orientation.sign(b.0, b.1, a.0, a.1, c.0, c.1) == -s1)
            #expect(Orientation.sign(b.0, b.1, c.0, c.1, a.0, a.1) == s1)
        }
    }
}
