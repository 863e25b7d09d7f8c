import ArgumentParser
import FleetGeo
import Foundation

/// `fleetbench geo`: classify every point of a workload against every fence
/// containing it, on one core; the plain grid measured in the same run.
struct GeoBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "Point-in-fence classification rate, index build time and memory.")

    @Option(help: "Fences (GeoJSON), e.g. fences10k.geojson from gen_workload.py.")
    var fences: String?

    @Option(help: "Points (id,lon,lat CSV), e.g. points100k.csv.")
    var points: String?

    @Option(help: "Timed passes over the points (the median is reported).")
    var runs = 5

    @Option(help: "Fence counts for the scaling table (synthetic, same density per fence).")
    var scaling: [Int] = [1000, 10_000, 100_000]

    @Option(help: "Cells across a typical fence in FenceIndex's finest grid.")
    var divisions = FenceIndex.defaultLeafDivisions

    @Option(help: "Plain grid cell size for the baseline, degrees (0.005 ≈ 500 m).")
    var gridDegrees = 0.005

    func run() throws {
        if let fences, let points {
            let fs = try Workload.fences(fences)
            let ps = try Workload.points(points)
            print("standard workload: \(fs.count) fences, \(ps.count) points (\(fences))")
            measure(fs, ps, baseline: true)
        }
        if !scaling.isEmpty {
            print("\nscaling (synthetic, same fence sizes and density; 100 000 points each):")
            print("fences   \tbuild s\tindex MiB\tpoints/s\tfences/point")
            for n in scaling {
                let (fs, ps) = Workload.synthetic(count: n, points: 100_000, seed: UInt64(n))
                let r = measure(fs, ps, baseline: false, quiet: true)
                print(
                    String(
                        format: "%-9d\t%.2f\t%.1f\t%.0f\t%.1f", n, r.build,
                        Double(r.bytes) / 1_048_576, r.rate, r.perPoint))
            }
        }
    }

    struct Result {
        var build: Double
        var bytes: Int
        var rate: Double
        var perPoint: Double
    }

    @discardableResult
    func measure(_ fs: [Fence], _ ps: [Coordinate], baseline: Bool, quiet: Bool = false) -> Result {
        let rss0 = Measure.rss()
        var index: FenceIndex!
        let build = Measure.seconds { index = FenceIndex(fences: fs, leafDivisions: divisions) }
        let rssGrowth = Measure.rss() - rss0
        var out: [Int32] = []
        out.reserveCapacity(256)
        var matches = 0
        var times: [Double] = []
        var singleTimes: [Double] = []
        for _ in 0..<runs {
            matches = 0
            times.append(
                Measure.seconds {
                    ps.withUnsafeBufferPointer { buf in
                        index.forEachContaining(buf) { _, found in matches += found.count }
                    }
                })
            singleTimes.append(
                Measure.seconds {
                    for p in ps { index.containing(p, into: &out) }
                })
        }
        let rate = Double(ps.count) / Measure.median(times)
        let singleRate = Double(ps.count) / Measure.median(singleTimes)
        let r = Result(
            build: build, bytes: index.stats.bytes, rate: rate,
            perPoint: Double(matches) / Double(ps.count))
        guard !quiet else { return r }
        let s = index.stats
        let sizes = s.cellSizes.map { String(format: "%.5f°", $0) }.joined(separator: ", ")
        print(
            String(
                format:
                    "FenceIndex: build %.3f s; index %@ (RSS grew %@); grids %@ (%d dense); %d cells, %d interior and %d boundary entries (%d by one side test, %d by two at a vertex), %d edge copies",
                build, Measure.mib(s.bytes), Measure.mib(rssGrowth), sizes, s.denseGrids, s.cells,
                s.interiorEntries, s.boundaryEntries, s.sideEntries, s.wedgeEntries,
                s.edgeCopies))
        print(
            String(
                format:
                    "FenceIndex: %.0f points/s on one core in batches, %.0f points/s one at a time (median of %d passes; %.1f fences per point)",
                rate, singleRate, runs, r.perPoint))
        guard baseline else { return r }
        var grid: PlainGridIndex!
        let gridBuild = Measure.seconds {
            grid = PlainGridIndex(fences: fs, cellDegrees: gridDegrees)
        }
        var gridTimes: [Double] = []
        var gridMatches = 0
        for _ in 0..<max(1, runs / 2) {
            gridMatches = 0
            gridTimes.append(
                Measure.seconds {
                    for p in ps {
                        grid.containing(p, into: &out)
                        gridMatches += out.count
                    }
                })
        }
        let gridRate = Double(ps.count) / Measure.median(gridTimes)
        print(
            String(
                format: "plain grid (%.3f° cells): build %.3f s; %.0f points/s", gridDegrees,
                gridBuild, gridRate))
        print(String(format: "ratio FenceIndex / plain grid: %.1f×", rate / gridRate))
        // The three must agree exactly: batches, one at a time, the plain grid.
        var batched: [[Int32]] = []
        ps.withUnsafeBufferPointer { buf in
            index.forEachContaining(buf) { _, found in batched.append(found.sorted()) }
        }
        var mismatches = 0
        for (k, p) in ps.enumerated() {
            var a: [Int32] = []
            index.containing(p, into: &a)
            var b: [Int32] = []
            grid.containing(p, into: &b)
            if a.sorted() != b.sorted() || batched[k] != b.sorted() { mismatches += 1 }
        }
        print(
            "agreement of batches, single points and the plain grid: \(mismatches == 0 ? "all \(ps.count) points identical" : "\(mismatches) POINTS DIFFER")"
        )
        return r
    }
}
