/// The spatial index over fences: which fences contain a point, which a
/// segment passes through.
///
/// A sparse hierarchy of cells (`CellGrid`: 8 × 8 children per cell). Each
/// fence is inserted from the deepest cell holding its bounding box down to a
/// leaf level chosen from its own size (about `leafDivisions` leaves across
/// it), so a country costs no more cells than a depot. A cell that no edge of
/// the fence touches is wholly inside or wholly outside it: inside, the
/// fence's index is stored in the cell's *interior list* and a point there
/// needs no test at all. A leaf cell that edges cross stores a *boundary
/// entry*: the indices of just those edges and whether the cell's centre is
/// inside; a point is then decided by the parity of crossings on the short
/// segment from the centre, usually 1–3 edge tests. Circles and corridors
/// are inserted the same way; their boundary entries are decided exactly.
///
/// Answers equal those of `Fence.contains` for every fence (a point on an edge
/// counts as inside); degenerate cases (the segment from the centre passing
/// exactly through a vertex) fall back to the full test.
public struct FenceIndex: Sendable {
    public let fences: [Fence]
    let nodes: [IndexNode]
    /// Blocks of 64 child node ids (−1: no child), one block per inner node.
    let childTable: [Int32]
    /// Fence indices per node; a negative value −(f + 1) is fence f of several
    /// parts, appended only when not already in the output.
    let interiorPool: [Int32]
    let boundaryPool: [BoundaryEntry]
    let edgeRefs: [Int32]
    /// Vertices of every polygon part (rings stored closed, one after another).
    let vx: [Double]
    let vy: [Double]
    /// Index statistics, for `fleetctl fences check` and the benchmark.
    public let stats: Stats

    public struct Stats: Sendable {
        public var nodes = 0
        public var innerNodes = 0
        public var interiorEntries = 0
        public var boundaryEntries = 0
        public var edgeRefs = 0
        /// Approximate bytes held by the index structures (fences not counted).
        public var bytes = 0
    }

    /// Leaves across a fence's larger dimension (at least; levels step by 8).
    public static let defaultLeafDivisions = 16.0

    /// Builds the index. Cost is about linear in the number of fences.
    public init(fences: [Fence], leafDivisions: Double = FenceIndex.defaultLeafDivisions) {
        var b = IndexBuilder(fences: fences, leafDivisions: leafDivisions)
        b.build()
        self.fences = fences
        let compact = b.compact()
        nodes = compact.nodes
        childTable = b.children
        interiorPool = compact.interior
        boundaryPool = compact.boundary
        edgeRefs = b.edgeRefs
        vx = b.vx
        vy = b.vy
        var s = Stats()
        s.nodes = nodes.count
        s.innerNodes = childTable.count / 64
        s.interiorEntries = interiorPool.count
        s.boundaryEntries = boundaryPool.count
        s.edgeRefs = edgeRefs.count
        s.bytes =
            nodes.count * MemoryLayout<IndexNode>.stride + childTable.count * 4 + interiorPool.count * 4
            + boundaryPool.count * MemoryLayout<BoundaryEntry>.stride + edgeRefs.count * 4 + vx.count * 16
        stats = s
    }

    /// Indices (into `fences`) of every fence containing `p`, into `out`
    /// (cleared first), in no particular order, each once.
    public func containing(_ p: Coordinate, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        guard p.lat.isFinite, p.lon.isFinite, abs(p.lat) <= 90 else { return }
        let x = p.lon
        let y = p.lat
        let ux = CellGrid.unitX(x)
        let uy = CellGrid.unitY(y)
        nodes.withUnsafeBufferPointer { nodes in
            childTable.withUnsafeBufferPointer { children in
                interiorPool.withUnsafeBufferPointer { interior in
                    var node = 0
                    var level = 0
                    while true {
                        let n = nodes[node]
                        if n.interiorCount > 0 {
                            for i in Int(n.interiorStart)..<Int(n.interiorStart + n.interiorCount) {
                                let v = interior[i]
                                if v >= 0 {
                                    out.append(v)
                                } else if !out.contains(-v - 1) {
                                    out.append(-v - 1)
                                }
                            }
                        }
                        if n.boundaryCount > 0 {
                            let (cx, cy) = CellGrid.center(
                                level: level, ix: CellGrid.index(ux, level: level), iy: CellGrid.index(uy, level: level))
                            for i in Int(n.boundaryStart)..<Int(n.boundaryStart + n.boundaryCount) {
                                let e = boundaryPool[i]
                                guard decide(e, x: x, y: y, cx: cx, cy: cy, p: p) else { continue }
                                if e.flags & BoundaryEntry.dedupe == 0 || !out.contains(e.fence) { out.append(e.fence) }
                            }
                        }
                        guard n.children >= 0, level < CellGrid.maxLevel else { return }
                        level += 1
                        let shift = UInt64(3 * (CellGrid.maxLevel - level))
                        let slot = Int(((uy >> shift) & 7) << 3 | ((ux >> shift) & 7))
                        let child = children[Int(n.children) * 64 + slot]
                        guard child >= 0 else { return }
                        node = Int(child)
                    }
                }
            }
        }
    }

    /// Indices of every fence containing `p`, ascending.
    public func containing(_ p: Coordinate) -> [Int32] {
        var out: [Int32] = []
        containing(p, into: &out)
        out.sort()
        return out
    }

    /// Whether the point (x, y) is inside the fence of boundary entry `e`,
    /// whose cell centre is (cx, cy).
    @inline(__always)
    private func decide(_ e: BoundaryEntry, x: Double, y: Double, cx: Double, cy: Double, p: Coordinate) -> Bool {
        if e.flags & BoundaryEntry.exact != 0 { return fences[Int(e.fence)].contains(p) }
        let start = Int(e.edgeStart)
        let end = start + Int(e.edgeCount)
        for k in start..<end {
            let i = Int(edgeRefs[k])
            if Segment.contains(x: x, y: y, x1: vx[i], y1: vy[i], x2: vx[i + 1], y2: vy[i + 1]) { return true }
        }
        guard let odd = EdgeParity.crossings(cx, cy, x, y, edgeRefs[start..<end], vx, vy) else {
            return fences[Int(e.fence)].contains(p)
        }
        return (e.flags & BoundaryEntry.refInside != 0) != odd
    }

    /// Indices of the fences whose area the straight segment a→b (in lon/lat)
    /// touches, ascending. A segment whose longitudes differ by more than
    /// 180° is taken the short way, across the antimeridian.
    public func touched(from a: Coordinate, to b: Coordinate) -> [Int32] {
        var candidates = Set<Int32>()
        for (p, q) in FenceIndex.pieces(a, b) {
            collect(node: 0, level: 0, ix: 0, iy: 0, p: p, q: q, into: &candidates)
        }
        return candidates.filter { fences[Int($0)].intersects(a, b) }.sorted()
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
        return [
            (a, Coordinate(lat: lat, lon: edge)), (Coordinate(lat: lat, lon: -edge), b),
        ]
    }

    private func collect(node: Int, level: Int, ix: UInt64, iy: UInt64, p: Coordinate, q: Coordinate, into out: inout Set<Int32>) {
        let n = nodes[node]
        for i in Int(n.interiorStart)..<Int(n.interiorStart + n.interiorCount) {
            let v = interiorPool[i]
            out.insert(v >= 0 ? v : -v - 1)
        }
        for i in Int(n.boundaryStart)..<Int(n.boundaryStart + n.boundaryCount) { out.insert(boundaryPool[i].fence) }
        guard n.children >= 0 else { return }
        for slot in 0..<64 {
            let child = childTable[Int(n.children) * 64 + slot]
            guard child >= 0 else { continue }
            let cx = ix * 8 + UInt64(slot & 7)
            let cy = iy * 8 + UInt64(slot >> 3)
            let (x0, y0, x1, y1) = CellGrid.bounds(level: level + 1, ix: cx, iy: cy)
            let pad = CellGrid.size(level + 1) * 1e-9
            guard
                EdgeParity.segmentTouchesRect(
                    p.lon, p.lat, q.lon, q.lat, x0 - pad, y0 - pad, x1 + pad, y1 + pad)
            else { continue }
            collect(node: Int(child), level: level + 1, ix: cx, iy: cy, p: p, q: q, into: &out)
        }
    }
}

/// One node of the hierarchy: its lists and its children.
struct IndexNode: Sendable {
    var interiorStart: Int32 = 0
    var interiorCount: Int32 = 0
    var boundaryStart: Int32 = 0
    var boundaryCount: Int32 = 0
    /// Block index in `childTable`, or −1 for a leaf.
    var children: Int32 = -1
}

/// A fence's boundary in one leaf cell.
struct BoundaryEntry: Sendable {
    var fence: Int32
    var edgeStart: Int32
    var edgeCount: Int32
    var flags: UInt8

    /// The cell's centre is inside the fence part.
    static let refInside: UInt8 = 1
    /// Decide with the fence's full test (circles, corridors, degenerate centres).
    static let exact: UInt8 = 2
    /// The fence has several parts: append only when not already in the output.
    static let dedupe: UInt8 = 4
}
