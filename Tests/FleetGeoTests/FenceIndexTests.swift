import FleetSimCore
import Foundation
import Testing

@testable import FleetGeo

/// Random fences around a centre: star polygons (some with a hole), circles, corridors.
func randomFences(count: Int, around c: Coordinate, spreadDeg: Double, rng: inout SplitMix64)
    -> [Fence]
{
    (0..<count).map { i in
        let cx = c.lon + Double.random(in: -spreadDeg...spreadDeg, using: &rng)
        let cy = c.lat + Double.random(in: -spreadDeg...spreadDeg, using: &rng)
        let r = Double.random(in: 0.001...0.05, using: &rng)
        switch i % 4 {
        case 0, 1:
            let n = Int.random(in: 3...24, using: &rng)
            var pts = (0..<n).map { k -> Coordinate in
                let a = Double(k) / Double(n) * 2 * Double.pi
                let rr = r * Double.random(in: 0.3...1, using: &rng)
                return Oracle.snap(Coordinate(lat: cy + rr * sin(a), lon: cx + rr * cos(a)))
            }
            pts.append(pts[0])
            var holes: [Ring] = []
            if i % 8 == 0 {
                let h = r * 0.2
                holes.append(
                    Ring(
                        [(-h, -h), (h, -h), (h, h), (-h, h), (-h, -h)].map {
                            Oracle.snap(Coordinate(lat: cy + $0.1, lon: cx + $0.0))
                        }))
            }
            return Fence(
                id: "p\(i)", name: "p\(i)",
                shape: .polygons([Polygon(shell: Ring(pts), holes: holes)]))
        case 2:
            return Fence(
                id: "c\(i)", name: "c\(i)",
                shape: .circle(center: Coordinate(lat: cy, lon: cx), radiusM: r * 100_000))
        default:
            let line = (0..<4).map { k in
                Coordinate(lat: cy + Double(k) * r, lon: cx + Double(k % 2) * r)
            }
            return Fence(
                id: "l\(i)", name: "l\(i)", shape: .corridor(line: line, halfWidthM: r * 20_000))
        }
    }
}

@Suite struct FenceIndexTests {
    /// The oracle: every fence, tested directly.
    func bruteForce(_ fences: [Fence], _ p: Coordinate) -> [Int32] {
        fences.indices.filter { fences[$0].contains(p) }.map { Int32($0) }
    }

    @Test(arguments: [
        Coordinate(lat: 48.85, lon: 2.35), Coordinate(lat: -33.9, lon: 18.4),
        Coordinate(lat: 69.6, lon: 18.9),
    ])
    func agreesWithBruteForce(_ centre: Coordinate) {
        var rng = SplitMix64(seed: 42)
        let fences = randomFences(count: 400, around: centre, spreadDeg: 0.3, rng: &rng)
        let index = FenceIndex(fences: fences)
        var hits = 0
        for _ in 0..<5000 {
            let p = Coordinate(
                lat: centre.lat + Double.random(in: -0.35...0.35, using: &rng),
                lon: centre.lon + Double.random(in: -0.35...0.35, using: &rng))
            let got = index.containing(p)
            #expect(got == bruteForce(fences, p))
            hits += got.count
        }
        #expect(hits > 1000)  // the test must exercise containment, not only misses
    }

    @Test func vertexPointsCountAsInside() {
        var rng = SplitMix64(seed: 7)
        let fences = randomFences(
            count: 40, around: Coordinate(lat: 10, lon: 10), spreadDeg: 0.1, rng: &rng)
        let index = FenceIndex(fences: fences)
        for (i, f) in fences.enumerated() {
            guard case .polygons(let ps) = f.shape else { continue }
            for k in 0..<ps[0].shell.edgeCount {
                let p = Coordinate(lat: ps[0].shell.ys[k], lon: ps[0].shell.xs[k])
                #expect(index.containing(p).contains(Int32(i)))
            }
        }
    }

    @Test func largeFencesAndTheAntimeridian() {
        // A box unwrapped past 180° (170…190) and one split at ±180°.
        let unwrapped = Fence(
            id: "u", name: "u",
            shape: .polygons([
                Polygon(
                    shell: Ring(
                        [(170, -10), (190, -10), (190, 10), (170, 10), (170, -10)].map {
                            Coordinate(lat: $0.1, lon: $0.0)
                        }), holes: [])
            ]))
        let split = Fence(
            id: "s", name: "s",
            shape: .polygons([
                Polygon(
                    shell: Ring(
                        [(175, 20), (180, 20), (180, 30), (175, 30), (175, 20)].map {
                            Coordinate(lat: $0.1, lon: $0.0)
                        }), holes: []),
                Polygon(
                    shell: Ring(
                        [(-180, 20), (-175, 20), (-175, 30), (-180, 30), (-180, 20)].map {
                            Coordinate(lat: $0.1, lon: $0.0)
                        }), holes: []),
            ]))
        let circle = Fence(
            id: "c", name: "c",
            shape: .circle(center: Coordinate(lat: 0, lon: 179.999), radiusM: 1000))
        let index = FenceIndex(fences: [unwrapped, split, circle])
        #expect(index.containing(Coordinate(lat: 0, lon: -175)) == [0])
        #expect(index.containing(Coordinate(lat: 0, lon: 175)) == [0])
        #expect(index.containing(Coordinate(lat: 0, lon: -179.999)) == [0, 2])
        #expect(index.containing(Coordinate(lat: 25, lon: 179.5)) == [1])
        #expect(index.containing(Coordinate(lat: 25, lon: -179.5)) == [1])
        #expect(index.containing(Coordinate(lat: 25, lon: -170)) == [])
    }
}
