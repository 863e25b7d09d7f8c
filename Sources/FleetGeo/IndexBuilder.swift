import Foundation

/// Builds `FenceIndex`: prepares every fence's parts, inserts each from the
/// deepest cell holding it down to its leaf level, then packs the per-node
/// lists into flat pools.
struct IndexBuilder {
    let fences: [Fence]
    let leafDivisions: Double
    var vx: [Double] = []
    var vy: [Double] = []
    var children: [Int32] = []
    var nodeChildren: [Int32] = [-1]
    var edgeRefs: [Int32] = []
    private var interiorPairs: [(node: Int32, value: Int32)] = []
    private var boundaryPairs: [(node: Int32, entry: BoundaryEntry)] = []

    init(fences: [Fence], leafDivisions: Double) {
        self.fences = fences
        self.leafDivisions = leafDivisions
    }

    /// One insertable piece of a fence: a polygon (with its holes) or a whole
    /// circle or corridor, shifted by `shift` degrees of longitude so that
    /// parts lying past ±180° land inside −180…180.
    struct Part {
        var fence: Int32
        var rings: [Range<Int>]  // vertex ranges in vx/vy (closed rings); empty for circles and corridors
        var bounds: BoundingBox
        var shift: Double
        var dedupe: Bool
    }

    mutating func build() {
        for (i, fence) in fences.enumerated() {
            var parts: [Part] = []
            let shifts = FenceIndex.wrapShifts(fence.bounds)
            let multi: Bool
            switch fence.shape {
            case .polygons(let polygons): multi = polygons.count > 1 || shifts.count > 1
            default: multi = shifts.count > 1
            }
            for shift in shifts {
                switch fence.shape {
                case .polygons(let polygons):
                    for polygon in polygons {
                        var rings: [Range<Int>] = []
                        for ring in [polygon.shell] + polygon.holes {
                            let start = vx.count
                            vx.append(contentsOf: ring.xs.map { $0 + shift })
                            vy.append(contentsOf: ring.ys)
                            rings.append(start..<vx.count)
                        }
                        var b = polygon.bounds
                        b.minX += shift
                        b.maxX += shift
                        parts.append(Part(fence: Int32(i), rings: rings, bounds: b, shift: shift, dedupe: multi))
                    }
                default:
                    var b = fence.bounds
                    b.minX += shift
                    b.maxX += shift
                    parts.append(Part(fence: Int32(i), rings: [], bounds: b, shift: shift, dedupe: multi))
                }
            }
            for part in parts { insert(part) }
        }
    }

    // MARK: - Insertion

    private mutating func insert(_ part: Part) {
        // Clip the box to the root square.
        let minX = max(part.bounds.minX, -180)
        let maxX = min(part.bounds.maxX, 180)
        let minY = max(part.bounds.minY, -90)
        let maxY = min(part.bounds.maxY, 90)
        guard minX <= maxX, minY <= maxY else { return }
        let ux0 = CellGrid.unitX(minX)
        let ux1 = CellGrid.unitX(maxX)
        let uy0 = CellGrid.unitY(minY)
        let uy1 = CellGrid.unitY(maxY)
        // The deepest level whose one cell holds the whole box.
        var entry = 0
        while entry < CellGrid.maxLevel,
            CellGrid.index(ux0, level: entry + 1) == CellGrid.index(ux1, level: entry + 1),
            CellGrid.index(uy0, level: entry + 1) == CellGrid.index(uy1, level: entry + 1)
        {
            entry += 1
        }
        // Leaf level: cells no wider than the part's extent / leafDivisions.
        let extent = max(maxX - minX, maxY - minY, 1e-9)
        var leaf = entry
        while leaf < CellGrid.maxLevel, CellGrid.size(leaf) > extent / leafDivisions { leaf += 1 }
        leaf = max(leaf, entry)

        var node: Int32 = 0
        for level in 1...max(entry, 1) where level <= entry {
            node = child(
                of: node, slot: slot(ux0, uy0, level: level))
        }
        let ix = CellGrid.index(ux0, level: entry)
        let iy = CellGrid.index(uy0, level: entry)
        if part.rings.isEmpty {
            insertShape(part, node: node, level: entry, ix: ix, iy: iy, leaf: leaf)
        } else {
            var edges: [Int32] = []
            for r in part.rings { for v in r.lowerBound..<(r.upperBound - 1) { edges.append(Int32(v)) } }
            let (cx, cy) = CellGrid.center(level: entry, ix: ix, iy: iy)
            insertPolygon(part, node: node, level: entry, ix: ix, iy: iy, leaf: leaf, edges: edges, state: locate(part, cx, cy))
        }
    }

    private func slot(_ ux: UInt64, _ uy: UInt64, level: Int) -> Int {
        Int((CellGrid.index(uy, level: level) & 7) << 3 | (CellGrid.index(ux, level: level) & 7))
    }

    /// The child of `node` in `slot`, created when missing.
    private mutating func child(of node: Int32, slot: Int) -> Int32 {
        var block = nodeChildren[Int(node)]
        if block < 0 {
            block = Int32(children.count / 64)
            children.append(contentsOf: repeatElement(-1, count: 64))
            nodeChildren[Int(node)] = block
        }
        let k = Int(block) * 64 + slot
        if children[k] < 0 {
            children[k] = Int32(nodeChildren.count)
            nodeChildren.append(-1)
        }
        return children[k]
    }

    /// Inserts a polygon part into the cell (level, ix, iy) = `node`, which
    /// `edges` (and only they) touch; `state` is where the cell's centre lies.
    private mutating func insertPolygon(
        _ part: Part, node: Int32, level: Int, ix: UInt64, iy: UInt64, leaf: Int, edges: [Int32], state: PointLocation
    ) {
        var flags: UInt8 = part.dedupe ? BoundaryEntry.dedupe : 0
        if level >= leaf {
            switch state {
            case .inside: flags |= BoundaryEntry.refInside
            case .outside: break
            case .boundary: flags |= BoundaryEntry.exact
            }
            let start = Int32(edgeRefs.count)
            edgeRefs.append(contentsOf: edges)
            boundaryPairs.append(
                (node, BoundaryEntry(fence: part.fence, edgeStart: start, edgeCount: Int32(edges.count), flags: flags)))
            return
        }
        let (cx, cy) = CellGrid.center(level: level, ix: ix, iy: iy)
        let childLevel = level + 1
        let pad = CellGrid.size(childLevel) * 1e-9
        var childEdges: [Int32] = []
        childEdges.reserveCapacity(edges.count)
        for slot in 0..<64 {
            let cix = ix * 8 + UInt64(slot & 7)
            let ciy = iy * 8 + UInt64(slot >> 3)
            let (x0, y0, x1, y1) = CellGrid.bounds(level: childLevel, ix: cix, iy: ciy)
            guard x1 >= part.bounds.minX, x0 <= part.bounds.maxX, y1 >= part.bounds.minY, y0 <= part.bounds.maxY
            else { continue }
            childEdges.removeAll(keepingCapacity: true)
            for e in edges {
                let i = Int(e)
                if EdgeParity.segmentTouchesRect(vx[i], vy[i], vx[i + 1], vy[i + 1], x0 - pad, y0 - pad, x1 + pad, y1 + pad) {
                    childEdges.append(e)
                }
            }
            let (ccx, ccy) = CellGrid.center(level: childLevel, ix: cix, iy: ciy)
            var childState: PointLocation
            if state != .boundary, let odd = EdgeParity.crossings(cx, cy, ccx, ccy, edges[...], vx, vy) {
                childState = (state == .inside) != odd ? .inside : .outside
            } else {
                childState = locate(part, ccx, ccy)
            }
            if childEdges.isEmpty {
                guard childState != .outside else { continue }
                let c = child(of: node, slot: slot)
                interiorPairs.append((c, part.dedupe ? -part.fence - 1 : part.fence))
            } else {
                let c = child(of: node, slot: slot)
                insertPolygon(part, node: c, level: childLevel, ix: cix, iy: ciy, leaf: leaf, edges: childEdges, state: childState)
            }
        }
    }

    /// Inserts a circle or corridor: cells wholly inside go to interior lists,
    /// cells near the edge become exact boundary entries at the leaf level.
    private mutating func insertShape(_ part: Part, node: Int32, level: Int, ix: UInt64, iy: UInt64, leaf: Int) {
        let (x0, y0, x1, y1) = CellGrid.bounds(level: level, ix: ix, iy: iy)
        switch classify(part, x0, y0, x1, y1) {
        case .outside: return
        case .inside:
            interiorPairs.append((node, part.dedupe ? -part.fence - 1 : part.fence))
            return
        case .boundary:
            if level >= leaf {
                boundaryPairs.append(
                    (node, BoundaryEntry(fence: part.fence, edgeStart: 0, edgeCount: 0, flags: BoundaryEntry.exact | (part.dedupe ? BoundaryEntry.dedupe : 0))))
                return
            }
        }
        for slot in 0..<64 {
            let cix = ix * 8 + UInt64(slot & 7)
            let ciy = iy * 8 + UInt64(slot >> 3)
            let (cx0, cy0, cx1, cy1) = CellGrid.bounds(level: level + 1, ix: cix, iy: ciy)
            guard cx1 >= part.bounds.minX, cx0 <= part.bounds.maxX, cy1 >= part.bounds.minY, cy0 <= part.bounds.maxY
            else { continue }
            if classify(part, cx0, cy0, cx1, cy1) == .outside { continue }
            let c = child(of: node, slot: slot)
            insertShape(part, node: c, level: level + 1, ix: cix, iy: ciy, leaf: leaf)
        }
    }

    /// Whether a cell lies wholly inside a circle or corridor, wholly outside,
    /// or (conservatively) neither.
    private func classify(_ part: Part, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> PointLocation {
        let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map { Coordinate(lat: $0.1, lon: $0.0 - part.shift) }
        switch fences[Int(part.fence)].shape {
        case .circle(let c, let r):
            if x1 < part.bounds.minX || x0 > part.bounds.maxX || y1 < part.bounds.minY || y0 > part.bounds.maxY {
                return .outside
            }
            // The farthest point of a lon/lat cell from a point is a corner (cells span < 180°).
            if x1 - x0 < 180, corners.allSatisfy({ Haversine.distance(c, $0) <= r }) { return .inside }
            return .boundary
        case .corridor(let line, let half):
            var near = false
            for k in 0..<(line.count - 1) {
                var b = BoundingBox.around(line[k], metres: half)
                b.extend(BoundingBox.around(line[k + 1], metres: half))
                let s = part.shift
                if x1 >= b.minX + s, x0 <= b.maxX + s, y1 >= b.minY, y0 <= b.maxY {
                    near = true
                    // The set within `half` of one segment is convex: corners inside ⇒ cell inside.
                    if x1 - x0 < 1, corners.allSatisfy({ Fence.distance(from: $0, toLine: [line[k], line[k + 1]]) <= half }) {
                        return .inside
                    }
                }
            }
            return near ? .boundary : .outside
        case .polygons:
            return .boundary
        }
    }

    /// Full location of (x, y) against a polygon part (its own rings, shifted).
    private func locate(_ part: Part, _ x: Double, _ y: Double) -> PointLocation {
        var inside = false
        for r in part.rings {
            for i in r.lowerBound..<(r.upperBound - 1) {
                let x1 = vx[i]
                let y1 = vy[i]
                let x2 = vx[i + 1]
                let y2 = vy[i + 1]
                if Segment.contains(x: x, y: y, x1: x1, y1: y1, x2: x2, y2: y2) { return .boundary }
                if (y1 > y) != (y2 > y) {
                    let xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                    if x < xi { inside.toggle() }
                }
            }
        }
        return inside ? .inside : .outside
    }

    // MARK: - Packing

    /// Packs the per-node pairs into flat pools (counting sort by node).
    func compact() -> (nodes: [IndexNode], interior: [Int32], boundary: [BoundaryEntry]) {
        var nodes = nodeChildren.map { IndexNode(children: $0) }
        for p in interiorPairs { nodes[Int(p.node)].interiorCount += 1 }
        for p in boundaryPairs { nodes[Int(p.node)].boundaryCount += 1 }
        var i: Int32 = 0
        var b: Int32 = 0
        for k in nodes.indices {
            nodes[k].interiorStart = i
            nodes[k].boundaryStart = b
            i += nodes[k].interiorCount
            b += nodes[k].boundaryCount
        }
        var fillI = nodes.map(\.interiorStart)
        var fillB = nodes.map(\.boundaryStart)
        var interior = [Int32](repeating: 0, count: Int(i))
        var boundary = [BoundaryEntry](
            repeating: BoundaryEntry(fence: 0, edgeStart: 0, edgeCount: 0, flags: 0), count: Int(b))
        for p in interiorPairs {
            interior[Int(fillI[Int(p.node)])] = p.value
            fillI[Int(p.node)] += 1
        }
        for p in boundaryPairs {
            boundary[Int(fillB[Int(p.node)])] = p.entry
            fillB[Int(p.node)] += 1
        }
        return (nodes, interior, boundary)
    }
}

extension FenceIndex {
    /// Longitude shifts (0, −360, +360) under which some of a box lies in −180…180.
    static func wrapShifts(_ b: BoundingBox) -> [Double] {
        [0.0, -360, 360].filter { b.maxX + $0 >= -180 && b.minX + $0 <= 180 }
    }
}
