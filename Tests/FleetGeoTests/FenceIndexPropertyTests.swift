import FleetSimCore
import Foundation
import Testing

@testable import FleetGeo

func polygon(_ pts: [(Double, Double)], holes: [[(Double, Double)]] = []) -> Polygon {
    func ring(_ p: [(Double, Double)]) -> Ring {
        var r = p.map { Oracle.snap(Coordinate(lat: $0.1, lon: $0.0)) }
        if r.first != r.last { r.append(r[0]) }
        return Ring(r)
    }
    return Polygon(shell: ring(pts), holes: holes.map(ring))
}

@Suite struct FenceIndexPropertyTests {
    static let naturalEarth: [Fence] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent(
                "../../Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson")
        guard let data = try? Data(contentsOf: url) else { return [] }
        return (try? GeoJSONFenceLoader.load(Array(data), file: url.path)) ?? []
    }()

    /// The countries moved onto the exact oracle's grid (a few µm at most).
    static let naturalEarthOnGrid: [Fence] = naturalEarth.map { f in
        guard case .polygons(let polys) = f.shape else { return f }
        func ring(_ r: Ring) -> Ring {
            Ring(zip(r.xs, r.ys).map { Oracle.snap(Coordinate(lat: $0.1, lon: $0.0)) })
        }
        return Fence(
            id: f.id, name: f.name,
            shape: .polygons(
                polys.map { Polygon(shell: ring($0.shell), holes: $0.holes.map(ring)) }))
    }

    @Test func naturalEarthCountriesAgreeWithTheOracleWorldwide() throws {
        let fences = Self.naturalEarthOnGrid
        try #require(
            fences.count == 177,
            "needs Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson")
        let index = FenceIndex(fences: fences)
        var rng = SplitMix64(seed: 110)
        var inside = 0
        var points: [Coordinate] = []
        for _ in 0..<4000 {
            // Uniform on the sphere, plus the poles' and antimeridian's neighbourhoods.
            let lat = asin(Double.random(in: -1...1, using: &rng)) * 180 / Double.pi
            points.append(Coordinate(lat: lat, lon: Double.random(in: -180...180, using: &rng)))
        }
        for _ in 0..<600 {
            points.append(
                Coordinate(
                    lat: Double.random(in: -90 ... -60, using: &rng),
                    lon: Double.random(in: -180...180, using: &rng)))
            points.append(
                Coordinate(
                    lat: Double.random(in: -25...75, using: &rng),
                    lon: Bool.random(using: &rng)
                        ? Double.random(in: 175...180, using: &rng)
                        : Double.random(in: -180 ... -175, using: &rng)))
        }
        points += [
            Coordinate(lat: -90, lon: 0), Coordinate(lat: -90, lon: 180),
            Coordinate(lat: -89.999, lon: -179.999),
            Coordinate(lat: -17.8, lon: 178.5), Coordinate(lat: 65, lon: 180),
            Coordinate(lat: 65, lon: -180),
        ]
        points = points.map(Oracle.snap)
        var mismatches: [String] = []
        for p in points {
            let expected = Oracle.containing(fences, p)
            let got = index.containing(p)
            if got != expected { mismatches.append("\(p): index \(got), oracle \(expected)") }
            if !expected.isEmpty { inside += 1 }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(inside > 1000)
        // Antarctica holds the south pole; Fiji holds a point on each side of ±180°.
        let names = { (p: Coordinate) in index.containing(p).map { fences[Int($0)].id } }
        #expect(names(Coordinate(lat: -90, lon: 0)) == ["Antarctica"])
        #expect(names(Coordinate(lat: -16.3, lon: 179.9)) == ["Fiji"])
        #expect(names(Coordinate(lat: -16.3, lon: -179.9)) == ["Fiji"])
    }

    @Test func everyVertexCountsAsInsideAndEdgeMidpointsAreExact() {
        var rng = SplitMix64(seed: 3)
        let fences =
            Self.naturalEarthOnGrid
            + randomFences(
                count: 60, around: Coordinate(lat: 10, lon: 10), spreadDeg: 0.2, rng: &rng)
        let index = FenceIndex(fences: fences)
        var checked = 0
        for (i, f) in fences.enumerated() {
            guard case .polygons(let ps) = f.shape else { continue }
            for p in ps {
                for ring in [p.shell] + p.holes {
                    for k in stride(from: 0, to: ring.edgeCount, by: max(1, ring.edgeCount / 3)) {
                        let v = Coordinate(lat: ring.ys[k], lon: ring.xs[k])
                        // The midpoint rounded onto the grid: on the edge, or a
                        // hair's breadth off it; the oracle says which.
                        let m = Oracle.snap(
                            Coordinate(
                                lat: (ring.ys[k] + ring.ys[k + 1]) / 2,
                                lon: (ring.xs[k] + ring.xs[k + 1]) / 2))
                        for q in [v, m] where abs(q.lon) <= 180 {
                            if q == v {
                                #expect(index.containing(q).contains(Int32(i)), "\(f.id) at \(q)")
                            }
                            #expect(index.containing(q) == Oracle.containing(fences, q))
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 300)
    }

    @Test func multipolygonsSliversAndDegenerateRings() {
        var rng = SplitMix64(seed: 99)
        var fences: [Fence] = []
        for i in 0..<150 {
            let cx = Double.random(in: -1...1, using: &rng)
            let cy = Double.random(in: -1...1, using: &rng)
            let s = Double.random(in: 0.001...0.2, using: &rng)
            switch i % 5 {
            case 0:  // multipolygon: two squares side by side sharing an edge, one with a hole
                fences.append(
                    Fence(
                        id: "m\(i)", name: "",
                        shape: .polygons([
                            polygon(
                                [(cx, cy), (cx + s, cy), (cx + s, cy + s), (cx, cy + s)],
                                holes: [
                                    [
                                        (cx + s / 4, cy + s / 4), (cx + s / 2, cy + s / 4),
                                        (cx + s / 2, cy + s / 2), (cx + s / 4, cy + s / 2),
                                    ]
                                ]),
                            polygon([
                                (cx + s, cy), (cx + 2 * s, cy), (cx + 2 * s, cy + s),
                                (cx + s, cy + s),
                            ]),
                        ])))
            case 1:  // a sliver a millionth of its length wide
                fences.append(
                    Fence(
                        id: "s\(i)", name: "",
                        shape: .polygons([
                            polygon([(cx, cy), (cx + s, cy + s), (cx + s, cy + s + s * 1e-6)])
                        ])))
            case 2:  // repeated and collinear vertices
                fences.append(
                    Fence(
                        id: "d\(i)", name: "",
                        shape: .polygons([
                            polygon([
                                (cx, cy), (cx, cy), (cx + s / 2, cy), (cx + s, cy),
                                (cx + s, cy + s), (cx + s, cy + s), (cx, cy + s),
                            ])
                        ])))
            case 3:  // axis-aligned box whose edges fall on round coordinates
                let x = (cx * 100).rounded() / 100
                let y = (cy * 100).rounded() / 100
                fences.append(
                    Fence(
                        id: "b\(i)", name: "",
                        shape: .polygons([
                            polygon([(x, y), (x + 0.05, y), (x + 0.05, y + 0.05), (x, y + 0.05)])
                        ])))
            default:  // a concave comb
                var pts: [(Double, Double)] = [(cx, cy)]
                for k in 0..<6 {
                    pts.append((cx + Double(k) * s / 6, cy + s))
                    pts.append((cx + (Double(k) + 0.5) * s / 6, cy + s * 0.1))
                }
                pts.append((cx + s, cy + s))
                pts.append((cx + s, cy))
                fences.append(Fence(id: "c\(i)", name: "", shape: .polygons([polygon(pts)])))
            }
        }
        let index = FenceIndex(fences: fences)
        var points: [Coordinate] = []
        for _ in 0..<8000 {
            points.append(
                Coordinate(
                    lat: Double.random(in: -1.1...1.5, using: &rng),
                    lon: Double.random(in: -1.1...1.5, using: &rng)))
        }
        // Points on the round grid hit box edges and corners exactly.
        for gx in stride(from: -100, through: 150, by: 1) {
            for gy in stride(from: -100, through: 150, by: 5) {
                points.append(Coordinate(lat: Double(gy) / 100, lon: Double(gx) / 100))
            }
        }
        points = points.map(Oracle.snap)
        var bad = 0
        for p in points where index.containing(p) != Oracle.containing(fences, p) { bad += 1 }
        #expect(bad == 0)
        // The batch path gives the same answers as one at a time.
        var batchBad = 0
        points.withUnsafeBufferPointer { buf in
            index.forEachContaining(buf) { i, found in
                if found.sorted() != index.containing(points[i]) { batchBad += 1 }
            }
        }
        #expect(batchBad == 0)
    }

    @Test func circlesAndCorridorsNearTheAntimeridianAndThePoles() {
        let fences = [
            Fence(
                id: "c1", name: "",
                shape: .circle(center: Coordinate(lat: -17, lon: 179.95), radiusM: 20_000)),
            Fence(
                id: "c2", name: "",
                shape: .circle(center: Coordinate(lat: 89.9, lon: 0), radiusM: 30_000)),
            Fence(
                id: "k1", name: "",
                shape: .corridor(
                    line: [
                        Coordinate(lat: 60, lon: 179.8), Coordinate(lat: 60.1, lon: -179.9),
                        Coordinate(lat: 60.3, lon: -179.7),
                    ],
                    halfWidthM: 2000)),
        ]
        let index = FenceIndex(fences: fences)
        var rng = SplitMix64(seed: 5)
        var hits = [0, 0, 0]
        for _ in 0..<20_000 {
            let which = Int.random(in: 0...2, using: &rng)
            let p: Coordinate
            switch which {
            case 0:
                p = Coordinate(
                    lat: -17 + Double.random(in: -0.3...0.3, using: &rng),
                    lon: wrap(179.95 + Double.random(in: -0.3...0.3, using: &rng)))
            case 1:
                p = Coordinate(
                    lat: Double.random(in: 89.5...90, using: &rng),
                    lon: Double.random(in: -180...180, using: &rng))
            default:
                p = Coordinate(
                    lat: Double.random(in: 59.9...60.4, using: &rng),
                    lon: wrap(179.8 + Double.random(in: -0.2...0.8, using: &rng)))
            }
            let got = index.containing(p)
            // The corridor's distances are local-projection metres: compare away from its edge.
            let expected = Oracle.containing(fences, p)
            if which == 2,
                abs(
                    Fence.distance(
                        from: p,
                        toLine: {
                            if case .corridor(let l, _) = fences[2].shape {
                                return l
                            } else {
                                return []
                            }
                        }()) - 2000) < 5
            {
                continue
            }
            #expect(got == expected, "\(p)")
            hits[which] += got.isEmpty ? 0 : 1
        }
        #expect(hits.allSatisfy { $0 > 100 }, "\(hits)")
    }

    @Test func segmentsThatCutAFenceAreFound() {
        // A 1 km box; a sparse track cuts its corner between two outside fixes.
        let box = Fence(
            id: "yard", name: "",
            shape: .polygons([
                polygon([(11.0, 48.0), (11.0135, 48.0), (11.0135, 48.009), (11.0, 48.009)])
            ]))
        let far = Fence(
            id: "far", name: "",
            shape: .circle(center: Coordinate(lat: 48.5, lon: 11.5), radiusM: 100))
        let index = FenceIndex(fences: [box, far])
        #expect(
            index.touched(
                from: Coordinate(lat: 47.999, lon: 11.012), to: Coordinate(lat: 48.002, lon: 11.016)
            ) == [0])
        #expect(
            index.touched(
                from: Coordinate(lat: 47.999, lon: 11.014), to: Coordinate(lat: 48.001, lon: 11.016)
            ) == [])
        #expect(
            index.touched(
                from: Coordinate(lat: 48.5, lon: 11.49), to: Coordinate(lat: 48.5, lon: 11.51)) == [
                    1
                ])
        // Random segments against every fence.
        var rng = SplitMix64(seed: 8)
        let fences = randomFences(
            count: 200, around: Coordinate(lat: 48, lon: 11), spreadDeg: 0.3, rng: &rng)
        let idx = FenceIndex(fences: fences)
        for _ in 0..<2000 {
            let a = Coordinate(
                lat: 48 + Double.random(in: -0.3...0.3, using: &rng),
                lon: 11 + Double.random(in: -0.3...0.3, using: &rng))
            let b = Coordinate(
                lat: a.lat + Double.random(in: -0.05...0.05, using: &rng),
                lon: a.lon + Double.random(in: -0.05...0.05, using: &rng))
            let expected = fences.indices.filter { fences[$0].intersects(a, b) }.map { Int32($0) }
            #expect(idx.touched(from: a, to: b) == expected)
            // The tracker's form: every fence containing b excluded, ends not looked up.
            let atB = Set(idx.containing(b))
            #expect(
                idx.touched(from: a, to: b, endsExcluded: true) { atB.contains($0) }
                    == expected.filter { !atB.contains($0) })
        }
    }

    @Test func segmentsAcrossCountriesTheAntimeridianAndThePolesAgreeWithTheOracle() throws {
        let fences = Self.naturalEarth
        try #require(
            fences.count == 177,
            "needs Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson")
        let index = FenceIndex(fences: fences)
        var rng = SplitMix64(seed: 211)
        var cut = 0
        var mismatches: [String] = []
        for k in 0..<1500 {
            let a: Coordinate
            let b: Coordinate
            switch k % 3 {
            case 0:  // anywhere, up to a few degrees long
                a = Coordinate(
                    lat: Double.random(in: -85...85, using: &rng),
                    lon: Double.random(in: -180...180, using: &rng))
                b = Coordinate(
                    lat: max(-90, min(90, a.lat + Double.random(in: -3...3, using: &rng))),
                    lon: a.lon + Double.random(in: -3...3, using: &rng))
            case 1:  // across ±180° (Fiji, Russia)
                a = Coordinate(
                    lat: Double.random(in: -25...75, using: &rng),
                    lon: Double.random(in: 177...180, using: &rng))
                b = Coordinate(
                    lat: a.lat + Double.random(in: -2...2, using: &rng),
                    lon: Double.random(in: -180 ... -177, using: &rng))
            default:  // near the south pole (Antarctica)
                a = Coordinate(
                    lat: Double.random(in: -90 ... -60, using: &rng),
                    lon: Double.random(in: -180...180, using: &rng))
                b = Coordinate(
                    lat: Double.random(in: -90 ... -60, using: &rng),
                    lon: a.lon + Double.random(in: -10...10, using: &rng))
            }
            let b2 = Coordinate(
                lat: b.lat, lon: b.lon > 180 ? b.lon - 360 : b.lon < -180 ? b.lon + 360 : b.lon)
            let expected = fences.indices.filter { fences[$0].intersects(a, b2) }.map { Int32($0) }
            let got = index.touched(from: a, to: b2)
            if got != expected { mismatches.append("\(a)→\(b2): index \(got), oracle \(expected)") }
            let atB = Set(index.containing(b2))
            let skipping = index.touched(from: a, to: b2, endsExcluded: true) { atB.contains($0) }
            if skipping != expected.filter({ !atB.contains($0) }) {
                mismatches.append(
                    "\(a)→\(b2), ends excluded: index \(skipping), oracle \(expected)")
            }
            if !expected.isEmpty && fences.indices.allSatisfy({ !fences[$0].contains(a) }) {
                cut += 1
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(cut > 50, "segments from outside into a country: \(cut)")
    }

    /// A fleet's area gets a dense table; two areas far apart a hashed one.
    /// Both, and the one-edge side test, give what every fence's own test
    /// gives (the index's contract; `Fence.contains` is checked against the
    /// oracle elsewhere), one point at a time and in batches.
    @Test(arguments: [false, true])
    func denseAndHashedTablesAgreeWithEveryFencesOwnTest(farApart: Bool) {
        var rng = SplitMix64(seed: farApart ? 31 : 30)
        var fences = randomFences(
            count: 160, around: Coordinate(lat: 45, lon: 7), spreadDeg: 0.2, rng: &rng)
        if farApart {
            fences += randomFences(
                count: 160, around: Coordinate(lat: -33, lon: 151), spreadDeg: 0.2, rng: &rng)
        }
        let index = FenceIndex(fences: fences)
        #expect(index.stats.cellSizes.count == 1)
        #expect(index.stats.denseGrids == (farApart ? 0 : 1))
        #expect(index.stats.sideEntries > index.stats.boundaryEntries / 10)
        var points: [Coordinate] = []
        for _ in 0..<2500 {
            let c = farApart && Bool.random(using: &rng) ? (-33.0, 151.0) : (45.0, 7.0)
            points.append(
                Coordinate(
                    lat: c.0 + Double.random(in: -0.25...0.25, using: &rng),
                    lon: c.1 + Double.random(in: -0.25...0.25, using: &rng)))
        }
        let expected = points.map { p in
            fences.indices.filter { fences[$0].contains(p) }.map { Int32($0) }
        }
        #expect(expected.reduce(0) { $0 + $1.count } > 1000)
        let mismatches = indexMismatches(index, points, expected)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func aFenceFarLargerThanTheRestGoesToACoarserGrid() {
        var rng = SplitMix64(seed: 12)
        var fences = randomFences(
            count: 100, around: Coordinate(lat: 0, lon: 0), spreadDeg: 1, rng: &rng)
        fences.append(
            Fence(
                id: "big", name: "",
                shape: .polygons([polygon([(-60, -40), (60, -40), (60, 40), (-60, 40)])])))
        let index = FenceIndex(fences: fences)
        #expect(index.stats.cellSizes.count == 2)
        #expect(index.stats.bytes < 50 << 20)
        #expect(index.containing(Coordinate(lat: 30, lon: 50)) == [100])
        for _ in 0..<3000 {
            let p = Oracle.snap(
                Coordinate(
                    lat: Double.random(in: -2...2, using: &rng),
                    lon: Double.random(in: -2...2, using: &rng)))
            #expect(index.containing(p) == Oracle.containing(fences, p))
        }
    }
}

/// Where `index` answers otherwise than `expected` (each point's fences,
/// ascending), one point at a time and in batches.
func indexMismatches(_ index: FenceIndex, _ points: [Coordinate], _ expected: [[Int32]])
    -> [String]
{
    var mismatches: [String] = []
    for (k, p) in points.enumerated() where index.containing(p) != expected[k] {
        mismatches.append("\(p): index \(index.containing(p)), expected \(expected[k])")
    }
    points.withUnsafeBufferPointer { buf in
        index.forEachContaining(buf) { k, got in
            if got.sorted() != expected[k] {
                mismatches.append("batch \(points[k]): \(got.sorted()), expected \(expected[k])")
            }
        }
    }
    return mismatches
}

func wrap(_ lon: Double) -> Double { lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon }
