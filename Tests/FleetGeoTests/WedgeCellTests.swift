import FleetSimCore
import Foundation
import Testing

@testable import FleetGeo

/// Cells whose only boundary is two edges meeting at a vertex are decided by
/// two side tests (`EdgeParity.sides`). Around every vertex of shapes with
/// sharp and wide, convex and reflex corners, in rings of either direction
/// and in holes, the index must answer as the exact oracle does: at random
/// points, at the vertex, along both edges and along both edges' lines past
/// the vertex (on a line, off the boundary: the fall-back path).
@Suite struct WedgeCellTests {
    /// `v` on a grid of 2⁻²⁰° (so halvings of differences stay on the oracle's 2⁻⁴⁰° grid).
    static func coarse(_ v: Double) -> Double { (v * 0x1p20).rounded() / 0x1p20 }

    static func ring(_ pts: [(Double, Double)], at c: (Double, Double)) -> [(Double, Double)] {
        pts.map { (coarse(c.0 + $0.0), coarse(c.1 + $0.1)) }
    }

    /// A ten-pointed star, alternately convex (sharp) and reflex (wide) corners.
    static func star(radius: Double, inner: Double) -> [(Double, Double)] {
        (0..<20).map { k in
            let r = k % 2 == 0 ? radius : inner
            let a = Double(k) * Double.pi / 10
            return (r * cos(a), r * sin(a))
        }
    }

    static let fences: [Fence] = {
        let s = star(radius: 0.02, inner: 0.008)
        let spike: [(Double, Double)] = [
            (0, 0), (0.03, 0.001), (0.002, 0.004), (0.001, 0.03), (-0.02, 0.01),
        ]
        let square: [(Double, Double)] = [
            (-0.03, -0.03), (0.03, -0.03), (0.03, 0.03), (-0.03, 0.03),
        ]
        return [
            Fence(id: "ccw", name: "", shape: .polygons([polygon(ring(s, at: (7.0, 45.0)))])),
            Fence(
                id: "cw", name: "",
                shape: .polygons([polygon(ring(s.reversed(), at: (7.1, 45.0)))])),
            Fence(id: "spike", name: "", shape: .polygons([polygon(ring(spike, at: (7.2, 45.0)))])),
            Fence(
                id: "hole", name: "",
                shape: .polygons([
                    polygon(
                        ring(square, at: (7.3, 45.0)),
                        holes: [ring(star(radius: 0.02, inner: 0.01), at: (7.3, 45.0))])
                ])),
        ]
    }()

    /// Points around every vertex of every ring.
    static func probes(_ rng: inout SplitMix64) -> [Coordinate] {
        var out: [Coordinate] = []
        for fence in fences {
            guard case .polygons(let polys) = fence.shape else { continue }
            for ring in polys.flatMap({ [$0.shell] + $0.holes }) {
                let n = ring.xs.count - 1
                for k in 0..<n {
                    let (vx, vy) = (ring.xs[k], ring.ys[k])
                    let (ax, ay) = (ring.xs[(k + n - 1) % n], ring.ys[(k + n - 1) % n])
                    let (bx, by) = (ring.xs[k + 1], ring.ys[k + 1])
                    out.append(Coordinate(lat: vy, lon: vx))
                    for m in 3...12 {
                        let h = 1 / Double(1 << m)
                        // Along both edges, and along their lines beyond the vertex.
                        for (dx, dy) in [(ax - vx, ay - vy), (bx - vx, by - vy)] {
                            out.append(Coordinate(lat: vy + dy * h, lon: vx + dx * h))
                            out.append(Coordinate(lat: vy - dy * h, lon: vx - dx * h))
                        }
                    }
                    for _ in 0..<150 {
                        out.append(
                            Oracle.snap(
                                Coordinate(
                                    lat: vy + Double.random(in: -0.003...0.003, using: &rng),
                                    lon: vx + Double.random(in: -0.003...0.003, using: &rng))))
                    }
                }
            }
        }
        return out
    }

    @Test func everyPointAroundAVertexAgreesWithTheOracle() {
        let index = FenceIndex(fences: Self.fences)
        #expect(index.stats.wedgeEntries > 100)
        var rng = SplitMix64(seed: 7)
        let points = Self.probes(&rng)
        let expected = points.map { Oracle.containing(Self.fences, $0) }
        #expect(expected.filter { !$0.isEmpty }.count > points.count / 4)
        let mismatches = indexMismatches(index, points, expected)
        #expect(mismatches.count == 0, "\(mismatches.prefix(5))")
    }
}
