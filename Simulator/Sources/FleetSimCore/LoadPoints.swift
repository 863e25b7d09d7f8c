import Foundation

/// Start points for the load generator's devices.
public enum LoadPoints {
    /// A points file that cannot be used: path, line and what is wrong.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// `id,lon,lat` rows, as `gen_workload.py` writes them (a header line is skipped).
    public static func load(_ path: String) throws(Problem) -> [(lat: Double, lon: Double)] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Problem(description: "cannot read \(path): \(error.localizedDescription)")
        }
        var out: [(lat: Double, lon: Double)] = []
        for (n, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let f = line.split(separator: ",")
            guard f.count >= 3, let lon = Double(f[1]), let lat = Double(f[2]),
                (-180...180).contains(lon), (-90...90).contains(lat)
            else {
                if n == 0 { continue }
                throw Problem(
                    description: "\(path):\(n + 1): expected id,lon,lat, found \"\(line)\"")
            }
            out.append((lat, lon))
        }
        guard !out.isEmpty else { throw Problem(description: "\(path): no points") }
        return out
    }

    /// `count` uniform points over the standard workload's square (100 km ×
    /// 100 km around 48.85 N 2.35 E), from a fixed seed.
    public static func workloadSquare(count: Int) -> [(lat: Double, lon: Double)] {
        var state: UInt64 = 20_240_611
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let mPerDegLat = 6_371_008.8 * .pi / 180
        let mPerDegLon = mPerDegLat * cos(48.85 * .pi / 180)
        return (0..<count).map { _ in
            (
                48.85 + (unit() - 0.5) * 100_000 / mPerDegLat,
                2.35 + (unit() - 0.5) * 100_000 / mPerDegLon
            )
        }
    }
}
