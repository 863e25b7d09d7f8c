import FleetGeo
import FleetSimCore
import Foundation

/// Fences and points to classify: the standard workload's files, or a
/// synthetic one of any size with the same kinds, sizes and density.
enum Workload {
    /// Reads `points100k.csv`-style `id,lon,lat` rows.
    static func points(_ path: String) throws -> [Coordinate] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [Coordinate] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let f = line.split(separator: ",")
            guard f.count >= 3, let lon = Double(f[1]), let lat = Double(f[2]) else { continue }
            out.append(Coordinate(lat: lat, lon: lon))
        }
        return out
    }

    static func fences(_ path: String) throws -> [Fence] {
        try GeoJSONFenceLoader.load(
            Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
    }

    /// `count` fences like the standard workload's (half 32-gon circles, a
    /// quarter convex, a quarter concave stars; radius 100 m–5 km) over a
    /// square around 48.85 N 2.35 E sized so that fences per km² stay those of
    /// 10 000 fences on 100 km × 100 km, and `points` uniform points over it.
    static func synthetic(count: Int, points: Int, seed: UInt64) -> ([Fence], [Coordinate]) {
        var rng = SplitMix64(seed: seed)
        let half = 50_000.0 * (Double(count) / 10_000).squareRoot()
        let mLat = Haversine.earthRadius * Double.pi / 180
        let mLon = mLat * cos(48.85 * Double.pi / 180)
        func ll(_ x: Double, _ y: Double) -> Coordinate {
            Coordinate(lat: 48.85 + y / mLat, lon: 2.35 + x / mLon)
        }
        var fences: [Fence] = []
        for i in 0..<count {
            let cx = Double.random(in: -half...half, using: &rng)
            let cy = Double.random(in: -half...half, using: &rng)
            let r = Double.random(in: 100...5000, using: &rng)
            let rot = Double.random(in: 0..<(2 * Double.pi), using: &rng)
            var pts: [Coordinate] = []
            switch i % 4 {
            case 0, 1:
                for j in 0..<32 {
                    let a = rot + 2 * Double.pi * Double(j) / 32
                    pts.append(ll(cx + r * cos(a), cy + r * sin(a)))
                }
            case 2:
                let n = Int.random(in: 6...60, using: &rng)
                let aspect = Double.random(in: 0.4...1, using: &rng)
                for j in 0..<n {
                    let a =
                        2 * Double.pi * (Double(j) + Double.random(in: 0.1...0.9, using: &rng))
                        / Double(n)
                    let ex = r * cos(a)
                    let ey = r * aspect * sin(a)
                    pts.append(
                        ll(cx + ex * cos(rot) - ey * sin(rot), cy + ex * sin(rot) + ey * cos(rot)))
                }
            default:
                let n = Int.random(in: 6...60, using: &rng)
                for j in 0..<n {
                    let a =
                        rot + 2 * Double.pi
                        * (Double(j) + Double.random(in: 0.1...0.9, using: &rng)) / Double(n)
                    let rr =
                        r
                        * (j % 2 == 0
                            ? Double.random(in: 0.75...1, using: &rng)
                            : Double.random(in: 0.3...0.6, using: &rng))
                    pts.append(ll(cx + rr * cos(a), cy + rr * sin(a)))
                }
            }
            pts.append(pts[0])
            fences.append(
                Fence(
                    id: "f\(i)", name: "f\(i)",
                    shape: .polygons([Polygon(shell: Ring(pts), holes: [])])))
        }
        let ps = (0..<points).map { _ in
            ll(
                Double.random(in: -half...half, using: &rng),
                Double.random(in: -half...half, using: &rng))
        }
        return (fences, ps)
    }
}
