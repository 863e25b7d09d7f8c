import Foundation

/// Builds `FenceIndex`: splits fences into parts, picks each part's grid,
/// classifies the cells it touches (edges rasterised cell by cell, interior
/// found by a scanline per row of cells), then packs each grid's cells into
/// contiguous runs (in a `LargePageBuffer`) and the grid's table
/// (`GridLevel`: dense or hashed).
struct IndexBuilder {
    static let refInside: UInt8 = 1
    static let exact: UInt8 = 2
    static let dedupe: UInt8 = 4
    /// Boundary entry with one edge whose chord splits the cell: decided by
    /// the side of its line (`EdgeParity.sides`).
    static let oneSide: UInt8 = 8
    /// With `oneSide`: points left of the edge are inside. With `wedge`:
    /// points in the wedge left of both edges (see `wedgeBoth`) are inside.
    static let leftInside: UInt8 = 16
    /// Boundary entry with two edges meeting at a vertex (A→V stored first,
    /// then V→B), no other edge of the fence in the cell: the two rays from
    /// V are the whole boundary in the cell, so two side tests decide
    /// (`EdgeParity.sides`).
    static let wedge: UInt8 = 32
    /// With `wedge`: the turn A→V→B is to the left, so the wedge left of
    /// both edges is their half-planes' intersection (else their union).
    static let wedgeBoth: UInt8 = 64
    /// Header bit: the cell's interior list holds a fence of several parts.
    static let hasMultiPart: UInt64 = 1 << 31

    let fences: [Fence]
    let leafDivisions: Double
    private(set) var interiorCount = 0
    private(set) var boundaryCount = 0
    private(set) var sideCount = 0
    private(set) var wedgeCount = 0
    private var levels: [Int: LevelBuild] = [:]
    private var baseCell = 1.0

    /// One insertable piece of a fence: a polygon with its holes (rings
    /// closed, longitudes shifted by `shift`), or a whole circle or corridor.
    struct Part {
        var fence: Int32
        var rings: [(xs: [Double], ys: [Double])]
        var bounds: BoundingBox
        var shift: Double
        var dedupe: Bool
        var extent: Double { max(bounds.maxX - bounds.minX, bounds.maxY - bounds.minY) }
    }

    /// One grid under construction. Cells are numbered in order of first
    /// use, through a dense table over the grid's occupied box when that is
    /// small (the usual case), else a dictionary.
    struct LevelBuild {
        let cellSize: Double
        var cellIndex: [UInt64: Int32] = [:]
        var dense: [Int32] = []
        var denseX0 = 0
        var denseY0 = 0
        var denseWidth = 0
        var keys: [UInt64] = []
        var interior: [(cell: Int32, value: Int32)] = []
        var boundary: [(cell: Int32, fence: Int32, meta: Int32, coordStart: Int32)] = []
        var staging: [Double] = []

        init(cellSize: Double, box: (x0: Int, y0: Int, x1: Int, y1: Int)?) {
            self.cellSize = cellSize
            if let box, (box.x1 - box.x0 + 1) * (box.y1 - box.y0 + 1) <= 1 << 24 {
                denseX0 = box.x0
                denseY0 = box.y0
                denseWidth = box.x1 - box.x0 + 1
                dense = [Int32](repeating: -1, count: denseWidth * (box.y1 - box.y0 + 1))
            }
        }

        mutating func cell(_ ix: Int, _ iy: Int) -> Int32 {
            if !dense.isEmpty {
                let d = (iy - denseY0) * denseWidth + (ix - denseX0)
                if dense[d] >= 0 { return dense[d] }
                let c = Int32(keys.count)
                keys.append(GridLevel.key(ix, iy))
                dense[d] = c
                return c
            }
            let key = GridLevel.key(ix, iy)
            if let c = cellIndex[key] { return c }
            let c = Int32(keys.count)
            keys.append(key)
            cellIndex[key] = c
            return c
        }
    }

    init(fences: [Fence], leafDivisions: Double) {
        self.fences = fences
        self.leafDivisions = leafDivisions
    }

    mutating func build() {
        var parts: [Part] = []
        for (i, fence) in fences.enumerated() {
            let shifts = FenceIndex.wrapShifts(fence.bounds)
            var multi = shifts.count > 1
            if case .polygons(let ps) = fence.shape, ps.count > 1 { multi = true }
            for shift in shifts {
                switch fence.shape {
                case .polygons(let polygons):
                    for polygon in polygons {
                        let rings = ([polygon.shell] + polygon.holes).map { r in
                            (r.xs.map { $0 + shift }, r.ys)
                        }
                        var b = polygon.bounds
                        b.minX += shift
                        b.maxX += shift
                        parts.append(
                            Part(
                                fence: Int32(i), rings: rings, bounds: b, shift: shift,
                                dedupe: multi))
                    }
                default:
                    var b = fence.bounds
                    b.minX += shift
                    b.maxX += shift
                    parts.append(
                        Part(fence: Int32(i), rings: [], bounds: b, shift: shift, dedupe: multi))
                }
            }
        }
        guard !parts.isEmpty else { return }
        let extents = parts.map(\.extent).sorted()
        baseCell = min(max(extents[extents.count / 2] / leafDivisions, 1e-7), 360)
        // Each part's grid and cell range; each grid's occupied box.
        var placed: [(part: Int, level: Int, xr: ClosedRange<Int>, yr: ClosedRange<Int>)] = []
        var boxes: [Int: (x0: Int, y0: Int, x1: Int, y1: Int)] = [:]
        for (k, part) in parts.enumerated() {
            var level = 0
            var c = baseCell
            while part.extent / c > FenceIndex.maxCellsAcross && c < 360 {
                level += 1
                c *= FenceIndex.maxCellsAcross
            }
            // The part's cells, clipped to the world (−180…180, −90…90).
            let ix0 = max(0, Int(((part.bounds.minX + 180) / c).rounded(.down)))
            let ix1 = min(
                Int((360 / c).rounded(.down)), Int(((part.bounds.maxX + 180) / c).rounded(.down)))
            let iy0 = max(0, Int(((part.bounds.minY + 90) / c).rounded(.down)))
            let iy1 = min(
                Int((180 / c).rounded(.down)), Int(((part.bounds.maxY + 90) / c).rounded(.down)))
            guard ix0 <= ix1, iy0 <= iy1 else { continue }
            placed.append((k, level, ix0...ix1, iy0...iy1))
            let b = boxes[level] ?? (ix0, iy0, ix1, iy1)
            boxes[level] = (min(b.x0, ix0), min(b.y0, iy0), max(b.x1, ix1), max(b.y1, iy1))
        }
        for (level, box) in boxes {
            var g = LevelBuild(
                cellSize: baseCell * pow(FenceIndex.maxCellsAcross, Double(level)), box: box)
            // Upper bounds, so the big arrays never move while they fill
            // (reserved pages that are never touched cost nothing).
            let mine = placed.filter { $0.level == level }
            g.interior.reserveCapacity(mine.reduce(0) { $0 + $1.xr.count * $1.yr.count })
            let rim = mine.reduce(0) { $0 + 2 * ($1.xr.count + $1.yr.count) + 4 }
            g.boundary.reserveCapacity(rim * 2)
            g.staging.reserveCapacity(rim * 16)
            levels[level] = g
        }
        for p in placed {
            // Moved out (not copied) while it grows, so its arrays stay uniquely owned.
            var grid = levels.removeValue(forKey: p.level)!
            if parts[p.part].rings.isEmpty {
                insertShape(parts[p.part], &grid, p.xr, p.yr)
            } else {
                insertPolygon(parts[p.part], &grid, p.xr, p.yr)
            }
            levels[p.level] = grid
        }
    }

    private mutating func insertPolygon(
        _ part: Part, _ g: inout LevelBuild, _ xr: ClosedRange<Int>, _ yr: ClosedRange<Int>
    ) {
        let c = g.cellSize
        let pad = c * 1e-9
        // Edges as flat arrays.
        var ex1: [Double] = []
        var ey1: [Double] = []
        var ex2: [Double] = []
        var ey2: [Double] = []
        for r in part.rings {
            for i in 0..<(r.xs.count - 1) {
                ex1.append(r.xs[i])
                ey1.append(r.ys[i])
                ex2.append(r.xs[i + 1])
                ey2.append(r.ys[i + 1])
            }
        }
        // Boundary cells: every (cell, edge) pair where the edge touches the cell,
        // sorted by row then column, the order of the scan below.
        var touched: [(cell: Int, edge: Int)] = []
        let width = xr.count
        for e in ex1.indices {
            let cx0 = max(
                xr.lowerBound, Int(((min(ex1[e], ex2[e]) - pad + 180) / c).rounded(.down)))
            let cx1 = min(
                xr.upperBound, Int(((max(ex1[e], ex2[e]) + pad + 180) / c).rounded(.down)))
            let cy0 = max(yr.lowerBound, Int(((min(ey1[e], ey2[e]) - pad + 90) / c).rounded(.down)))
            let cy1 = min(yr.upperBound, Int(((max(ey1[e], ey2[e]) + pad + 90) / c).rounded(.down)))
            guard cx0 <= cx1, cy0 <= cy1 else { continue }
            for iy in cy0...cy1 {
                let y0 = -90 + Double(iy) * c
                for ix in cx0...cx1 {
                    let x0 = -180 + Double(ix) * c
                    if EdgeParity.segmentTouchesRect(
                        ex1[e], ey1[e], ex2[e], ey2[e], x0 - pad, y0 - pad, x0 + c + pad,
                        y0 + c + pad)
                    {
                        touched.append(((iy - yr.lowerBound) * width + (ix - xr.lowerBound), e))
                    }
                }
            }
        }
        // Every cell's centre, row by row: the crossing number along the row's
        // centre line, as `Ring.locate` counts it (inside toggles where x < xᵢ).
        touched.sort { $0.cell < $1.cell || ($0.cell == $1.cell && $0.edge < $1.edge) }
        var t = 0
        var edges: [Int] = []
        var xs: [Double] = []
        let base: UInt8 = part.dedupe ? IndexBuilder.dedupe : 0
        for iy in yr {
            let yc = -90 + (Double(iy) + 0.5) * c
            xs.removeAll(keepingCapacity: true)
            for e in ex1.indices where (ey1[e] > yc) != (ey2[e] > yc) {
                xs.append(ex1[e] + (yc - ey1[e]) * (ex2[e] - ex1[e]) / (ey2[e] - ey1[e]))
            }
            xs.sort()
            var k = 0
            for ix in xr {
                let xc = -180 + (Double(ix) + 0.5) * c
                while k < xs.count && xs[k] <= xc { k += 1 }
                var inside = (xs.count - k) % 2 == 1
                // A centre within rounding of a crossing: counted exactly
                // (the crossings above are divided out, a few ulps off).
                if (k > 0 && xc - xs[k - 1] <= 1e-9) || (k < xs.count && xs[k] - xc <= 1e-9) {
                    inside = false
                    for e in ex1.indices
                    where (ey1[e] > yc) != (ey2[e] > yc)
                        && (ey2[e] > ey1[e])
                            == (Orientation.sign(ex1[e], ey1[e], ex2[e], ey2[e], xc, yc) > 0)
                    {
                        inside.toggle()
                    }
                }
                let here = (iy - yr.lowerBound) * width + (ix - xr.lowerBound)
                edges.removeAll(keepingCapacity: true)
                while t < touched.count && touched[t].cell == here {
                    edges.append(touched[t].edge)
                    t += 1
                }
                if !edges.isEmpty {
                    var flags = base
                    if edges.contains(where: {
                        Segment.contains(
                            x: xc, y: yc, x1: ex1[$0], y1: ey1[$0], x2: ex2[$0], y2: ey2[$0])
                    }) {
                        flags |= IndexBuilder.exact
                    } else if inside {
                        flags |= IndexBuilder.refInside
                    }
                    if flags & IndexBuilder.exact == 0, edges.count == 1 {
                        // One edge touches the (padded) cell, so both its ends lie
                        // outside the cell (a vertex inside would bring its other
                        // edge too): its chord is the whole boundary in the cell.
                        let e = edges[0]
                        let d = Orientation.sign(ex1[e], ey1[e], ex2[e], ey2[e], xc, yc)
                        if d != 0 {
                            flags |= IndexBuilder.oneSide
                            sideCount += 1
                            if (d > 0) == inside { flags |= IndexBuilder.leftInside }
                        }
                    } else if flags & IndexBuilder.exact == 0, edges.count == 2,
                        let w = wedge(edges[0], edges[1], xc, yc, inside, ex1, ey1, ex2, ey2)
                    {
                        flags |= w.flags
                        if w.swapped { edges.swapAt(0, 1) }
                        wedgeCount += 1
                    }
                    let start = Int32(g.staging.count)
                    for e in edges {
                        g.staging.append(ex1[e])
                        g.staging.append(ey1[e])
                        g.staging.append(ex2[e])
                        g.staging.append(ey2[e])
                    }
                    g.boundary.append(
                        (g.cell(ix, iy), part.fence, Int32(flags) | Int32(edges.count) << 8, start))
                    boundaryCount += 1
                } else if inside {
                    g.interior.append((g.cell(ix, iy), part.dedupe ? -part.fence - 1 : part.fence))
                    interiorCount += 1
                }
            }
        }
    }

    /// Circles and corridors: each cell of the box classified; cells near the
    /// edge become exact boundary entries.
    private mutating func insertShape(
        _ part: Part, _ g: inout LevelBuild, _ xr: ClosedRange<Int>, _ yr: ClosedRange<Int>
    ) {
        let c = g.cellSize
        let flags = IndexBuilder.exact | (part.dedupe ? IndexBuilder.dedupe : 0)
        for iy in yr {
            for ix in xr {
                let x0 = -180 + Double(ix) * c
                let y0 = -90 + Double(iy) * c
                switch classify(part, x0, y0, x0 + c, y0 + c) {
                case .outside: continue
                case .inside:
                    g.interior.append((g.cell(ix, iy), part.dedupe ? -part.fence - 1 : part.fence))
                    interiorCount += 1
                case .boundary:
                    g.boundary.append(
                        (g.cell(ix, iy), part.fence, Int32(flags), Int32(g.staging.count)))
                    boundaryCount += 1
                }
            }
        }
    }

    /// Whether a cell lies wholly inside a circle or corridor, wholly outside,
    /// or (conservatively) neither.
    private func classify(_ part: Part, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double)
        -> PointLocation
    {
        let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map {
            Coordinate(lat: max(-90, min(90, $0.1)), lon: $0.0 - part.shift)
        }
        switch fences[Int(part.fence)].shape {
        case .circle(let center, let r):
            // The farthest point of a lon/lat cell from a point is a corner (cells span < 180°).
            if x1 - x0 < 180, corners.allSatisfy({ Haversine.distance(center, $0) <= r }) {
                return .inside
            }
            return .boundary
        case .corridor(let line, let half):
            var near = false
            for k in 0..<(line.count - 1) {
                var b = BoundingBox.around(line[k], metres: half)
                b.extend(BoundingBox.around(line[k + 1], metres: half))
                let s = part.shift
                guard x1 >= b.minX + s, x0 <= b.maxX + s, y1 >= b.minY, y0 <= b.maxY else {
                    continue
                }
                near = true
                // The set within `half` of one segment is convex: corners inside ⇒ cell inside.
                if x1 - x0 < 1,
                    corners.allSatisfy({
                        Fence.distance(from: $0, toLine: [line[k], line[k + 1]]) <= half
                    })
                {
                    return .inside
                }
            }
            return near ? .boundary : .outside
        case .polygons:
            return .boundary
        }
    }

    /// Packs each grid: cells' runs laid out one after another, and the
    /// grid's table (`GridLevel`: dense when the occupied box is at most four
    /// times the cells in use, else hashed).
    func pack() -> ([GridLevel], LargePageBuffer<UInt64>) {
        var total = 0
        for g in levels.values {
            total +=
                g.keys.count + (g.interior.count + g.keys.count) / 2 + g.boundary.count
                + g.staging.count
        }
        // Runs are addressed with 32-bit offsets (a 32 GiB index).
        precondition(total < Int(UInt32.max), "fence index larger than 2³² words")
        var grids: [GridLevel] = []
        let words = LargePageBuffer<UInt64>(capacity: total) { words in
            var used = 0
            for level in levels.keys.sorted() {
                let g = levels[level]!
                let n = g.keys.count
                // Counting sort of the entries by cell.
                var interiorStart = [Int](repeating: 0, count: n + 1)
                for p in g.interior { interiorStart[Int(p.cell) + 1] += 1 }
                for k in 0..<n { interiorStart[k + 1] += interiorStart[k] }
                var interiorSorted = [Int32](repeating: 0, count: g.interior.count)
                var fill = interiorStart
                for p in g.interior {
                    interiorSorted[fill[Int(p.cell)]] = p.value
                    fill[Int(p.cell)] += 1
                }
                var boundaryStart = [Int](repeating: 0, count: n + 1)
                for p in g.boundary { boundaryStart[Int(p.cell) + 1] += 1 }
                for k in 0..<n { boundaryStart[k + 1] += boundaryStart[k] }
                var boundarySorted = [Int](repeating: 0, count: g.boundary.count)
                fill = boundaryStart
                for (k, p) in g.boundary.enumerated() {
                    boundarySorted[fill[Int(p.cell)]] = k
                    fill[Int(p.cell)] += 1
                }
                func emitRun(_ cell: Int) {
                    let interior = interiorSorted[interiorStart[cell]..<interiorStart[cell + 1]]
                    let boundary = boundarySorted[boundaryStart[cell]..<boundaryStart[cell + 1]].map
                    {
                        g.boundary[$0]
                    }
                    let multi = interior.contains { $0 < 0 } ? IndexBuilder.hasMultiPart : 0
                    words[used] = UInt64(interior.count) | multi | UInt64(boundary.count) << 32
                    used += 1
                    var k = interior.startIndex
                    while k < interior.endIndex {
                        let lo = UInt64(UInt32(bitPattern: interior[k]))
                        let hi =
                            k + 1 < interior.endIndex
                            ? UInt64(UInt32(bitPattern: interior[k + 1])) : 0
                        words[used] = lo | hi << 32
                        used += 1
                        k += 2
                    }
                    for b in boundary {
                        words[used] =
                            UInt64(UInt32(bitPattern: b.fence)) | UInt64(UInt32(bitPattern: b.meta))
                            << 32
                        used += 1
                        let edges = Int(b.meta >> 8)
                        for v in g.staging[Int(b.coordStart)..<(Int(b.coordStart) + 4 * edges)] {
                            words[used] = v.bitPattern
                            used += 1
                        }
                    }
                }
                if !g.dense.isEmpty, g.dense.count <= 4 * n + 4096 {
                    // Dense: runs in row order, each ending where the next begins.
                    var offsets = [UInt32](repeating: 0, count: g.dense.count + 1)
                    for d in 0..<g.dense.count {
                        offsets[d] = UInt32(used)
                        if g.dense[d] >= 0 { emitRun(Int(g.dense[d])) }
                    }
                    offsets[g.dense.count] = UInt32(used)
                    grids.append(
                        GridLevel(
                            cellSize: g.cellSize, count: n, x0: g.denseX0, y0: g.denseY0,
                            width: g.denseWidth, height: g.dense.count / g.denseWidth,
                            offsets: offsets))
                } else {
                    var capacity = 16
                    while capacity < n * 2 { capacity <<= 1 }
                    var slots = [CellSlot](
                        repeating: CellSlot(key: GridLevel.empty, start: 0, end: 0), count: capacity
                    )
                    for cell in 0..<n {
                        let start = UInt32(used)
                        emitRun(cell)
                        let slot = CellSlot(key: g.keys[cell], start: start, end: UInt32(used))
                        var h = GridLevel.hash(slot.key) & (capacity - 1)
                        while slots[h].key != GridLevel.empty { h = (h + 1) & (capacity - 1) }
                        slots[h] = slot
                    }
                    grids.append(GridLevel(cellSize: g.cellSize, count: n, slots: slots))
                }
            }
            return used
        }
        return (grids, words)
    }

    /// Edges copied into boundary entries, over all grids.
    var edgeCopies: Int { levels.values.reduce(0) { $0 + $1.staging.count / 4 } }

    /// The wedge flags for a boundary cell crossed by edges `e` and `f` only,
    /// when they meet at a vertex V (one ends where the other starts), and
    /// whether f is A→V (to be stored first); nil otherwise, or when the turn
    /// at V is straight or the cell's centre (xc, yc) lies on a line of the two
    /// (the parity test then decides). Both far ends lie outside the padded
    /// cell (a vertex inside brings its other edge too), so within the cell the
    /// boundary is the two rays from V: inside is the wedge left of both edges
    /// (their half-planes' intersection when A→V→B turns left, else their
    /// union) or its complement, whichever holds the centre as `centreInside`
    /// says.
    private func wedge(
        _ e: Int, _ f: Int, _ xc: Double, _ yc: Double, _ centreInside: Bool,
        _ ex1: [Double], _ ey1: [Double], _ ex2: [Double], _ ey2: [Double]
    ) -> (flags: UInt8, swapped: Bool)? {
        let swapped: Bool
        if ex2[e] == ex1[f] && ey2[e] == ey1[f] {
            swapped = false
        } else if ex2[f] == ex1[e] && ey2[f] == ey1[e] {
            swapped = true
        } else {
            return nil
        }
        let (a, b) = swapped ? (f, e) : (e, f)
        let turn = Orientation.sign(ex1[a], ey1[a], ex2[a], ey2[a], ex2[b], ey2[b])
        let s1 = Orientation.sign(ex1[a], ey1[a], ex2[a], ey2[a], xc, yc)
        let s2 = Orientation.sign(ex1[b], ey1[b], ex2[b], ey2[b], xc, yc)
        guard turn != 0, s1 != 0, s2 != 0 else { return nil }
        let both = turn > 0
        let inWedge = both ? (s1 > 0 && s2 > 0) : (s1 > 0 || s2 > 0)
        var flags = IndexBuilder.wedge
        if both { flags |= IndexBuilder.wedgeBoth }
        if inWedge == centreInside { flags |= IndexBuilder.leftInside }
        return (flags, swapped)
    }
}
