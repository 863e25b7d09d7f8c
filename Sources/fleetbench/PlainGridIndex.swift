import FleetGeo

/// The plain grid, the baseline `make bench` measures `FenceIndex` against
/// (benchmark only: the daemon never uses it).
///
/// A uniform grid of `cellDegrees` cells; each cell lists the fences whose
/// bounding box overlaps it. A query looks up one cell, then decides each
/// candidate exactly (`Fence.contains`). Fences whose boxes cover more than
/// `maxCellsPerFence` cells are kept in a short list checked by box first,
/// so a country-sized fence does not blow up memory.
struct PlainGridIndex: Sendable {
    let fences: [Fence]
    let cellDegrees: Double
    private let cells: [Int64: [Int32]]
    private let large: [Int32]
    static let maxCellsPerFence = 4096

    init(fences: [Fence], cellDegrees: Double = 0.01) {
        self.fences = fences
        self.cellDegrees = cellDegrees
        var cells: [Int64: [Int32]] = [:]
        var large: [Int32] = []
        for (i, fence) in fences.enumerated() {
            let pieces = PlainGridIndex.wrappedPieces(fence.bounds)
            var count = 0
            for b in pieces {
                let c0 = Int64((b.minX / cellDegrees).rounded(.down))
                let c1 = Int64((b.maxX / cellDegrees).rounded(.down))
                let r0 = Int64((b.minY / cellDegrees).rounded(.down))
                let r1 = Int64((b.maxY / cellDegrees).rounded(.down))
                count += Int((c1 - c0 + 1) * (r1 - r0 + 1))
            }
            if count > PlainGridIndex.maxCellsPerFence {
                large.append(Int32(i))
                continue
            }
            for b in pieces {
                let c0 = Int64((b.minX / cellDegrees).rounded(.down))
                let c1 = Int64((b.maxX / cellDegrees).rounded(.down))
                let r0 = Int64((b.minY / cellDegrees).rounded(.down))
                let r1 = Int64((b.maxY / cellDegrees).rounded(.down))
                for r in r0...r1 {
                    for c in c0...c1 {
                        cells[PlainGridIndex.key(r, c), default: []].append(Int32(i))
                    }
                }
            }
        }
        self.cells = cells
        self.large = large
    }

    @inline(__always) static func key(_ row: Int64, _ col: Int64) -> Int64 {
        (row &* 1_000_003) &+ col
    }

    /// The parts of a box inside −180…180 longitude, with parts past ±180° moved by 360°.
    static func wrappedPieces(_ b: BoundingBox) -> [BoundingBox] {
        if b.maxX - b.minX >= 360 {
            return [BoundingBox(minX: -180, minY: b.minY, maxX: 180, maxY: b.maxY)]
        }
        var pieces: [BoundingBox] = []
        for shift in [-360.0, 0, 360] {
            let lo = max(b.minX + shift, -180)
            let hi = min(b.maxX + shift, 180)
            if lo <= hi {
                pieces.append(BoundingBox(minX: lo, minY: b.minY, maxX: hi, maxY: b.maxY))
            }
        }
        return pieces
    }

    /// Indices (into `fences`) of every fence containing `p`, ascending, into `out` (cleared first).
    func containing(_ p: Coordinate, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let r = Int64((p.lat / cellDegrees).rounded(.down))
        let c = Int64((p.lon / cellDegrees).rounded(.down))
        if let list = cells[PlainGridIndex.key(r, c)] {
            for i in list where fences[Int(i)].contains(p) { out.append(i) }
        }
        for i in large
        where PlainGridIndex.boxHolds(fences[Int(i)].bounds, p) && fences[Int(i)].contains(p) {
            out.append(i)
        }
        if !large.isEmpty { out.sort() }
    }

    /// Indices of every fence containing `p`, ascending.
    func containing(_ p: Coordinate) -> [Int32] {
        var out: [Int32] = []
        containing(p, into: &out)
        return out
    }

    static func boxHolds(_ b: BoundingBox, _ p: Coordinate) -> Bool {
        guard p.lat >= b.minY, p.lat <= b.maxY else { return false }
        return b.contains(x: p.lon, y: p.lat) || b.contains(x: p.lon + 360, y: p.lat)
            || b.contains(x: p.lon - 360, y: p.lat)
    }
}
