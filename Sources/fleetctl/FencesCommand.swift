import ArgumentParser
import FleetGeo
import Foundation

/// `fleetctl fences check|locate`: work with a fences file, no daemon needed.
struct FencesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fences", abstract: "Check a fences file, or locate points in it.",
        subcommands: [FencesCheckCommand.self, FencesLocateCommand.self])
}

/// Loads a fences file; on failure prints every problem and exits 1.
func loadFences(_ path: String) throws -> [Fence] {
    let data: Data
    do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw Output.fail("\(path): cannot read the file: \(error.localizedDescription)")
    }
    do {
        return try GeoJSONFenceLoader.load(Array(data), file: path)
    } catch {
        throw Output.fail("\(error)")
    }
}

/// `fleetctl fences check FILE`: every problem, or a summary; exit 0 only when valid.
struct FencesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Validate a GeoJSON fences file: list every problem, or print a summary. Exit 0 only when valid."
    )

    @Argument(help: "The GeoJSON FeatureCollection.")
    var file: String

    func run() throws {
        let fences = try loadFences(file)
        var kinds: [String: Int] = [:]
        var vertices = 0
        var box = BoundingBox.empty
        for f in fences {
            kinds[f.shape.kindName, default: 0] += 1
            vertices += f.shape.vertexCount
            box.extend(f.bounds)
        }
        let t0 = Date()
        let index = FenceIndex(fences: fences)
        let build = Date().timeIntervalSince(t0)
        print("\(file): valid, \(fences.count) fences")
        for (kind, n) in kinds.sorted(by: { $0.key < $1.key }) { print("  \(kind): \(n)") }
        print("  vertices: \(vertices)")
        if !box.isEmpty {
            print(
                String(
                    format: "  bounding box: lon %.6f … %.6f, lat %.6f … %.6f", box.minX, box.maxX,
                    box.minY, box.maxY))
        }
        let s = index.stats
        print(
            String(
                format:
                    "  index: %d cells in %d grid(s), %d interior and %d boundary entries, %.1f MiB, built in %.2f s",
                s.cells, s.cellSizes.count, s.interiorEntries, s.boundaryEntries,
                Double(s.bytes) / 1_048_576, build))
    }
}

/// `fleetctl fences locate --fences FILE [--input POINTS.csv]`: `id,fence_id`
/// per containing fence, for `id,lon,lat` rows.
struct FencesLocateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "For id,lon,lat rows, print id,fence_id for every fence containing the point.",
        discussion: """
            Input: CSV rows id,lon,lat (a header row is skipped; blank lines too), from --input or standard \
            input. Output: one line id,fence_id per containing fence (fences in file order), nothing for a \
            point in no fence. A point on an edge is inside. A malformed row stops with its line number.
            """)

    @Option(help: "The GeoJSON fences file.")
    var fences: String

    @Option(help: "CSV of id,lon,lat rows (default: standard input).")
    var input: String?

    func run() throws {
        let fs = try loadFences(fences)
        let index = FenceIndex(fences: fs)
        let handle: FileHandle
        if let input {
            guard let h = FileHandle(forReadingAtPath: input) else {
                throw Output.fail("\(input): cannot open")
            }
            handle = h
        } else {
            handle = FileHandle.standardInput
        }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let source = input ?? "stdin"
        var ids: [Substring] = []
        var points: [Coordinate] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
        {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard f.count == 3, let lon = Double(f[1]), let lat = Double(f[2]) else {
                if ids.isEmpty, points.isEmpty, f.count == 3 { continue }  // a header row
                throw Output.fail(
                    "\(source):\(n + 1): expected id,lon,lat, found \"\(line.prefix(80))\"")
            }
            guard lon.isFinite, lat.isFinite, abs(lon) <= 180, abs(lat) <= 90 else {
                throw Output.fail(
                    "\(source):\(n + 1): coordinates out of range: lon \(f[1]), lat \(f[2])")
            }
            ids.append(Substring(f[0]))
            points.append(Coordinate(lat: lat, lon: lon))
        }
        var out = ""
        out.reserveCapacity(points.count * 24)
        points.withUnsafeBufferPointer { buf in
            index.forEachContaining(buf) { i, found in
                for f in found.sorted() {
                    out += ids[i]
                    out += ","
                    out += fs[Int(f)].id
                    out += "\n"
                }
                if out.utf8.count > 1 << 20 {
                    FileHandle.standardOutput.write(Data(out.utf8))
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
