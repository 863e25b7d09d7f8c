import CPrefetch

/// The spatial index over fences: which fences contain a point, which a
/// segment passes through.
///
/// Flat grids of classified cells. The cell size of the finest grid follows
/// the data (the median fence extent / `leafDivisions`); each coarser grid is
/// `maxCellsAcross` (256) times wider, and a fence goes to the finest grid
/// where it spans at most 256 cells, so a country costs no more cells than a
/// depot. Only grids that hold fences are searched (usually one).
///
/// Every cell a fence touches is classified once, at build time:
/// - no edge of the fence touches the cell: the cell is wholly inside (the
///   fence goes into the cell's *interior list*: a point there needs no test)
///   or wholly outside (nothing is stored);
/// - one edge crosses the cell: its chord is the fence's whole boundary in
///   the cell, so the side of its line decides (one orientation test);
/// - two edges meeting at a vertex, and no other: the two rays from the
///   vertex are the whole boundary in the cell, so the sides of their lines
///   decide (two orientation tests: the wedge between them is the
///   intersection or the union of their half-planes, by the turn);
/// - otherwise a *boundary entry* keeps the coordinates of just those edges
///   and whether the cell's centre is inside. A point is decided by the
///   parity of the crossings of the short segment from the centre to it,
///   usually two or three edge tests.
/// Circles and corridors get interior cells the same way; their boundary
/// entries are decided exactly. A cell's lists and edges lie in one
/// contiguous run of memory, found with one table look-up (`GridLevel`:
/// dense over a fleet's area, hashed for fences scattered worldwide).
///
/// Answers equal `Fence.contains` for every fence, a point on an edge
/// counting as inside; degenerate cases (the segment from the centre touching
/// a vertex) fall back to the full test.
public struct FenceIndex: Sendable {
    public let fences: [Fence]
    let grids: [GridLevel]
    /// Every cell's run, in 64-bit words: a header (interior count, boundary
    /// count); the interior ids two to a word (−(f+1) marks a fence of several
    /// parts, appended only once); then per boundary entry a word (fence,
    /// `flags | edgeCount << 8`) and its edges as x1, y1, x2, y2 bit patterns.
    let words: LargePageBuffer<UInt64>
    public let stats: Stats
    /// Each fence's place among all the fences' names in `String` order,
    /// equal names sharing one (`FenceIndex.ranks`): lists of the fences at a
    /// point are sorted by these numbers, not by comparing their strings.
    public let nameRanks: [Int32]
    /// The same for the fences' ids.
    public let idRanks: [Int32]
    /// Every fence's name is its id (a file whose features have ids and no
    /// names): a list of names is then the list of ids, one string for both.
    public let namesAreIds: Bool

    public struct Stats: Sendable {
        /// Cell sizes of the grids in use, degrees, finest first.
        public var cellSizes: [Double] = []
        public var cells = 0
        public var interiorEntries = 0
        public var boundaryEntries = 0
        public var edgeCopies = 0
        /// Boundary entries decided by one side-of-line test (`EdgeParity.sides`).
        public var sideEntries = 0
        /// Boundary entries decided by two side tests at a vertex (`EdgeParity.sides`).
        public var wedgeEntries = 0
        /// Grids with a dense table (the rest are hashed).
        public var denseGrids = 0
        /// Bytes held by the index structures (the fences themselves not counted).
        public var bytes = 0
    }

    /// Cells across a typical fence in the finest grid.
    public static let defaultLeafDivisions = 24.0
    /// Most cells a fence may span in its grid; larger fences go to a coarser grid.
    public static let maxCellsAcross = 256.0

    /// Builds the index; time is about linear in the number of fences.
    public init(fences: [Fence], leafDivisions: Double = FenceIndex.defaultLeafDivisions) {
        var b = IndexBuilder(fences: fences, leafDivisions: leafDivisions)
        b.build()
        self.fences = fences
        (grids, words) = b.pack()
        var s = Stats()
        s.cellSizes = grids.map(\.cellSize)
        s.cells = grids.reduce(0) { $0 + $1.count }
        s.interiorEntries = b.interiorCount
        s.boundaryEntries = b.boundaryCount
        s.edgeCopies = b.edgeCopies
        s.sideEntries = b.sideCount
        s.wedgeEntries = b.wedgeCount
        s.denseGrids = grids.filter { !$0.offsets.isEmpty }.count
        s.bytes = grids.reduce(0) { $0 + $1.bytes } + words.count * 8
        stats = s
        nameRanks = Self.ranks(of: fences.map(\.name))
        idRanks = Self.ranks(of: fences.map(\.id))
        namesAreIds = fences.allSatisfy { $0.name == $0.id }
    }

    /// Each string's place in `String` order among the distinct values of
    /// `strings` (0 for the least; equal strings, by `==`, share a place).
    static func ranks(of strings: [String]) -> [Int32] {
        let order = strings.indices.sorted { strings[$0] < strings[$1] }
        var ranks = [Int32](repeating: 0, count: strings.count)
        var rank: Int32 = -1
        var previous: String?
        for i in order {
            if strings[i] != previous { rank += 1 }
            ranks[i] = rank
            previous = strings[i]
        }
        return ranks
    }

    /// Indices (into `fences`) of every fence containing `p`, into `out`
    /// (cleared first), in no particular order, each once.
    public func containing(_ p: Coordinate, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let x = p.lon
        let y = p.lat
        guard x.isFinite, y.isFinite, abs(y) <= 90, abs(x) <= 180 else { return }
        words.withUnsafeBufferPointer { w in
            for g in grids {
                let (ix, iy) = FenceIndex.cell(x, y, g)
                guard let r = g.run(ix, iy) else { continue }
                let bound = GridLevel.head(w, at: r.start).bound
                let n = out.count
                out.append(contentsOf: repeatElement(0, count: bound))
                let found = out.withUnsafeMutableBufferPointer { o in
                    scan(w, r.start, g, ix, iy, p, o.baseAddress! + n, already: n)
                }
                out.removeLast(bound - found)
            }
        }
    }

    /// Classifies many points at once; `body` gets each point's index and its
    /// containing fences (valid only during the call), in input order.
    ///
    /// Same answers as `containing(_:into:)`, faster: the points go through
    /// a software pipeline. A point's table entry is prefetched
    /// `2 × FenceIndex.lookahead` points before it is decided, its cell's
    /// run (every cache line) `lookahead` points before, so the memory
    /// latency of one point overlaps the work on others.
    public func forEachContaining(
        _ points: UnsafeBufferPointer<Coordinate>, _ body: (Int, UnsafeBufferPointer<Int32>) -> Void
    ) {
        guard grids.count == 1 else {
            var out: [Int32] = []
            for (i, p) in points.enumerated() {
                containing(p, into: &out)
                out.withUnsafeBufferPointer { body(i, $0) }
            }
            return
        }
        let g = grids[0]
        let d = FenceIndex.lookahead
        let ringSize = 4 * d  // a power of two above 2d
        let mask = ringSize - 1
        // Per point in flight: its cell, then its run's start (−2: not yet looked up;
        // −1: no run, or not a valid point).
        let ring = UnsafeMutableBufferPointer<(ix: Int, iy: Int, start: Int)>.allocate(
            capacity: ringSize)
        defer { ring.deallocate() }
        let n = points.count
        // The fences found for one point: at most its run's entries (`bound`).
        var capacity = 64
        var out = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        defer { out.deallocate() }
        words.withUnsafeBufferPointer { w in
            for t in 0..<(n + 2 * d) {
                // A: the cell of point t, and a prefetch of its table entry.
                if t < n {
                    let p = points[t]
                    if p.lon.isFinite, p.lat.isFinite, abs(p.lat) <= 90, abs(p.lon) <= 180 {
                        let (ix, iy) = FenceIndex.cell(p.lon, p.lat, g)
                        g.prefetch(ix, iy)
                        ring[t & mask] = (ix, iy, -2)
                    } else {
                        ring[t & mask] = (0, 0, -1)
                    }
                }
                // B: point t − d's run, found and prefetched.
                let b = t - d
                if b >= 0 && b < n && ring[b & mask].start == -2 {
                    let c = ring[b & mask]
                    if let r = g.run(c.ix, c.iy) {
                        ring[b & mask].start = r.start
                        let base = UnsafeRawPointer(w.baseAddress!)
                        var k = r.start
                        while k < r.end {
                            cpf_prefetch(base + 8 * k)
                            k += 8
                        }
                        cpf_prefetch(base + 8 * (r.end - 1))
                    } else {
                        ring[b & mask].start = -1
                    }
                }
                // C: point t − 2d decided.
                let a = t - 2 * d
                if a >= 0 {
                    let c = ring[a & mask]
                    var found = 0
                    if c.start >= 0 {
                        let bound = GridLevel.head(w, at: c.start).bound
                        if bound > capacity {
                            out.deallocate()
                            capacity = bound
                            out = .allocate(capacity: capacity)
                        }
                        found = scan(w, c.start, g, c.ix, c.iy, points[a], out, already: 0)
                    }
                    body(a, UnsafeBufferPointer(start: out, count: found))
                }
            }
        }
    }

    /// The cell of grid `g` holding (x, y), a valid longitude and latitude.
    /// Both products are ≥ 0, so truncation is the floor (one instruction,
    /// where `rounded(.down)` is a call to libm's `floor` on baseline x86-64).
    @inline(__always)
    static func cell(_ x: Double, _ y: Double, _ g: GridLevel) -> (Int, Int) {
        (Int((x + 180) * g.inverse), Int((y + 90) * g.inverse))
    }

    /// Points between prefetching an entry and using it in
    /// `forEachContaining` (each of its two stages).
    static let lookahead = 8

    /// Writes the fences of the cell run at `start` (grid `g`, cell ix, iy)
    /// that contain `p` to `out` (room for the run's `bound`), returning how
    /// many. `already`: fences just before `out` found in other grids (a
    /// fence of several parts is reported once, so those are searched too).
    @inline(__always)
    private func scan(
        _ w: UnsafeBufferPointer<UInt64>, _ start: Int, _ g: GridLevel, _ ix: Int, _ iy: Int,
        _ p: Coordinate, _ out: UnsafeMutablePointer<Int32>, already: Int
    ) -> Int {
        let x = p.lon
        let y = p.lat
        let run = GridLevel.head(w, at: start)
        var n = 0
        // The ids are consecutive Int32s: one bulk copy.
        if !run.multiPart {
            out.update(from: run.interior.baseAddress!, count: run.interior.count)
            n = run.interior.count
        } else {
            for v in run.interior {
                let f = v >= 0 ? v : -v - 1
                if v >= 0 || !FenceIndex.holds(out - already, already + n, f) {
                    out[n] = f
                    n += 1
                }
            }
        }
        guard run.boundary > 0 else { return n }
        var i = run.entries
        let cx = -180 + (Double(ix) + 0.5) * g.cellSize
        let cy = -90 + (Double(iy) + 0.5) * g.cellSize
        for _ in 0..<run.boundary {
            let (fence, flags, edges) = GridLevel.entry(w[i])
            i += 1
            let inside: Bool
            if flags & (IndexBuilder.oneSide | IndexBuilder.wedge) != 0,
                let d = EdgeParity.sides(x, y, w, i, flags)
            {
                inside = d
            } else if flags & IndexBuilder.exact != 0 {
                inside = fences[Int(fence)].contains(p)
            } else if let d = EdgeParity.decide(
                x, y, cx, cy, w, i, edges, refInside: flags & IndexBuilder.refInside != 0)
            {
                inside = d
            } else {
                inside = fences[Int(fence)].contains(p)
            }
            i += 4 * edges
            // Written either way, counted only when inside (no branch to mispredict).
            out[n] = fence
            let keep =
                inside
                && (flags & IndexBuilder.dedupe == 0
                    || !FenceIndex.holds(out - already, already + n, fence))
            n &+= keep ? 1 : 0
        }
        return n
    }

    /// Whether the first `count` ids at `ids` include `f`.
    @inline(__always)
    static func holds(_ ids: UnsafeMutablePointer<Int32>, _ count: Int, _ f: Int32) -> Bool {
        var k = 0
        while k < count {
            if ids[k] == f { return true }
            k += 1
        }
        return false
    }

    /// Indices of every fence containing `p`, ascending.
    public func containing(_ p: Coordinate) -> [Int32] {
        var out: [Int32] = []
        containing(p, into: &out)
        out.sort()
        return out
    }

    /// Indices of the fences whose area the straight segment a→b (in lon/lat)
    /// touches, ascending. A segment whose longitudes differ by more than
    /// 180° is taken the short way, across the antimeridian. Fences for which
    /// `excluding` is true are left out.
    ///
    /// Answers equal `Fence.intersects` (an end inside, or an edge touched)
    /// but are found in the cells the segment passes through: an end inside
    /// comes from the point index; an edge crossed is one of the few edges a
    /// boundary cell keeps; a cell wholly inside a fence that the segment
    /// touches settles that fence. Only circles, corridors and cells whose
    /// centre lies on an edge fall back to the full test.
    ///
    /// `endsExcluded`: the caller promises that `excluding` is true for every
    /// fence containing `b`. Then a fence left is touched exactly when one
    /// of its edges is (b is outside it, so a segment from inside crosses the
    /// boundary), and the ends are not looked up.
    public func touched(
        from a: Coordinate, to b: Coordinate, endsExcluded: Bool = false,
        excluding: (Int32) -> Bool = { _ in false }
    ) -> [Int32] {
        var hits: [Int32] = []
        var exact: [Int32] = []
        if !endsExcluded {
            containing(a, into: &hits)
            var ends: [Int32] = []
            containing(b, into: &ends)
            hits += ends
        }
        words.withUnsafeBufferPointer { w in
            for (p, q) in FenceIndex.pieces(a, b) {
                for g in grids {
                    let ix0 = Int(((min(p.lon, q.lon) + 180) * g.inverse).rounded(.down))
                    let ix1 = Int(((max(p.lon, q.lon) + 180) * g.inverse).rounded(.down))
                    let iy0 = Int(((min(p.lat, q.lat) + 90) * g.inverse).rounded(.down))
                    let iy1 = Int(((max(p.lat, q.lat) + 90) * g.inverse).rounded(.down))
                    guard (ix1 - ix0 + 1) * (iy1 - iy0 + 1) <= 1 << 22 else {
                        // A segment spanning millions of cells: every fence of the grid, exactly.
                        exact += g.allFences(w)
                        continue
                    }
                    for iy in iy0...iy1 {
                        for ix in ix0...ix1 {
                            let x0 = -180 + Double(ix) * g.cellSize
                            let y0 = -90 + Double(iy) * g.cellSize
                            let pad = g.cellSize * 1e-9
                            guard
                                EdgeParity.segmentTouchesRect(
                                    p.lon, p.lat, q.lon, q.lat, x0 - pad, y0 - pad,
                                    x0 + g.cellSize + pad, y0 + g.cellSize + pad),
                                let r = g.run(ix, iy)
                            else { continue }
                            let settles = EdgeParity.segmentTouchesRect(
                                p.lon, p.lat, q.lon, q.lat, x0, y0, x0 + g.cellSize,
                                y0 + g.cellSize)
                            segmentInCell(
                                w, r.start, p, q, interiorTouched: settles,
                                edgesOnly: endsExcluded, &hits, &exact)
                        }
                    }
                }
            }
        }
        // Sorted and deduplicated in place (cheaper than a set for the few dozen found).
        hits.sort()
        exact.sort()
        var out: [Int32] = []
        var last: Int32 = -1
        var k = 0
        for c in hits where c != last {
            last = c
            if !excluding(c) { out.append(c) }
        }
        last = -1
        var extra: [Int32] = []
        for c in exact where c != last {
            last = c
            while k < out.count && out[k] < c { k += 1 }
            if k < out.count && out[k] == c { continue }
            if !excluding(c) && fences[Int(c)].intersects(a, b) { extra.append(c) }
        }
        if !extra.isEmpty {
            out += extra
            out.sort()
        }
        return out
    }

    /// One cell's part of `touched`: its fences the segment p→q (within the
    /// cell's grid frame) settles into `hits` (an edge of the cell's boundary
    /// entry touched; an interior cell, when `interiorTouched`), and those
    /// that need the full test into `exact`. `edgesOnly`: the cell's
    /// interior fences are skipped (with the ends excluded, a fence is
    /// touched exactly when an edge is, and that edge lies in a boundary
    /// cell the segment passes through).
    @inline(__always)
    private func segmentInCell(
        _ w: UnsafeBufferPointer<UInt64>, _ start: Int, _ p: Coordinate, _ q: Coordinate,
        interiorTouched: Bool, edgesOnly: Bool, _ hits: inout [Int32], _ exact: inout [Int32]
    ) {
        let run = GridLevel.head(w, at: start)
        if !edgesOnly {
            for v in run.interior {
                let f = v >= 0 ? v : -v - 1
                if interiorTouched { hits.append(f) } else { exact.append(f) }
            }
        }
        var i = run.entries
        for _ in 0..<run.boundary {
            let (fence, flags, edges) = GridLevel.entry(w[i])
            i += 1
            if flags & IndexBuilder.exact != 0 || edges == 0 {
                exact.append(fence)
            } else {
                for e in 0..<edges {
                    let o = i + 4 * e
                    if Segment.intersects(
                        p.lon, p.lat, q.lon, q.lat, Double(bitPattern: w[o]),
                        Double(bitPattern: w[o + 1]), Double(bitPattern: w[o + 2]),
                        Double(bitPattern: w[o + 3]))
                    {
                        hits.append(fence)
                        break
                    }
                }
            }
            i += 4 * edges
        }
    }

    /// The segment as one or two pieces within −180…180 longitude.
    static func pieces(_ a: Coordinate, _ b: Coordinate) -> [(Coordinate, Coordinate)] {
        let d = b.lon - a.lon
        guard abs(d) > 180 else { return [(a, b)] }
        // Crosses the antimeridian: unwrap b next to a, split at ±180.
        let bx = d > 0 ? b.lon - 360 : b.lon + 360
        let edge = d > 0 ? -180.0 : 180.0
        let t = (edge - a.lon) / (bx - a.lon)
        let lat = a.lat + t * (b.lat - a.lat)
        return [(a, Coordinate(lat: lat, lon: edge)), (Coordinate(lat: lat, lon: -edge), b)]
    }

    /// Longitude shifts (0, −360, +360) under which some of a box lies in −180…180.
    static func wrapShifts(_ b: BoundingBox) -> [Double] {
        [0.0, -360, 360].filter { b.maxX + $0 >= -180 && b.minX + $0 <= 180 }
    }
}
