import CPrefetch

/// One flat grid of `FenceIndex`: its cell size and where each cell's run of
/// words lies.
///
/// Two tables, chosen at build time: a dense one (one offset per cell of the
/// grid's occupied box, cells laid out row by row, a run ending where the
/// next begins) when the box is at most four times the cells in use — the
/// usual case, a fleet's area — and an open-addressing hash table (load ≤ ½)
/// otherwise, e.g. fences scattered over the world. The dense table is 4
/// bytes per cell of the box against 32 per cell in use for the hash table,
/// and needs no probing.
struct GridLevel: Sendable {
    let cellSize: Double
    let inverse: Double
    /// Cells in use (with at least one entry).
    let count: Int
    /// Dense table: the box's first column and row, its width and height,
    /// and `width × height + 1` offsets into the index's words.
    let x0: Int
    let y0: Int
    let width: Int
    let height: Int
    let offsets: LargePageBuffer<UInt32>
    /// Hash table (used when `offsets` is empty).
    let slots: LargePageBuffer<CellSlot>
    let mask: Int

    static let empty = UInt64.max

    /// A grid with a dense table; `offsets` has `width × height + 1` entries.
    init(
        cellSize: Double, count: Int, x0: Int, y0: Int, width: Int, height: Int,
        offsets: [UInt32]
    ) {
        precondition(offsets.count == width * height + 1)
        self.cellSize = cellSize
        inverse = 1 / cellSize
        self.count = count
        self.x0 = x0
        self.y0 = y0
        self.width = width
        self.height = height
        self.offsets = LargePageBuffer(offsets)
        slots = LargePageBuffer([])
        mask = 0
    }

    /// A grid with a hash table; `slots.count` is a power of two.
    init(cellSize: Double, count: Int, slots: [CellSlot]) {
        precondition(slots.count > 0 && slots.count & (slots.count - 1) == 0)
        self.cellSize = cellSize
        inverse = 1 / cellSize
        self.count = count
        x0 = 0
        y0 = 0
        width = 0
        height = 0
        offsets = LargePageBuffer([])
        self.slots = LargePageBuffer(slots)
        mask = slots.count - 1
    }

    /// Bytes held by the table.
    var bytes: Int {
        offsets.count * MemoryLayout<UInt32>.stride + slots.count * MemoryLayout<CellSlot>.stride
    }

    @inline(__always)
    static func key(_ ix: Int, _ iy: Int) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: ix)) << 32 | UInt64(UInt32(truncatingIfNeeded: iy))
    }

    @inline(__always)
    static func hash(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

    /// The words of cell (ix, iy)'s run (start inclusive, end exclusive), or
    /// nil for a cell no fence touches.
    @inline(__always)
    func run(_ ix: Int, _ iy: Int) -> (start: Int, end: Int)? {
        if !offsets.isEmpty {
            let dx = ix &- x0
            let dy = iy &- y0
            guard UInt(bitPattern: dx) < UInt(width), UInt(bitPattern: dy) < UInt(height) else {
                return nil
            }
            return offsets.withUnsafeBufferPointer { o in
                let d = dy * width + dx
                let s = Int(o[d])
                let e = Int(o[d + 1])
                return s < e ? (s, e) : nil
            }
        }
        let key = GridLevel.key(ix, iy)
        return slots.withUnsafeBufferPointer { s in
            var h = GridLevel.hash(key) & mask
            while true {
                let slot = s[h]
                if slot.key == key { return (Int(slot.start), Int(slot.end)) }
                if slot.key == GridLevel.empty { return nil }
                h = (h + 1) & mask
            }
        }
    }

    /// Prefetches cell (ix, iy)'s table entry (a hint; any cell may be passed).
    @inline(__always)
    func prefetch(_ ix: Int, _ iy: Int) {
        if !offsets.isEmpty {
            let dx = ix &- x0
            let dy = iy &- y0
            guard UInt(bitPattern: dx) < UInt(width), UInt(bitPattern: dy) < UInt(height) else {
                return
            }
            offsets.withUnsafeBufferPointer { cpf_prefetch($0.baseAddress! + (dy * width + dx)) }
        } else {
            let h = GridLevel.hash(GridLevel.key(ix, iy)) & mask
            slots.withUnsafeBufferPointer { cpf_prefetch($0.baseAddress! + h) }
        }
    }

    /// Calls `body` with the start of every cell's run.
    func forEachRun(_ body: (Int) -> Void) {
        if !offsets.isEmpty {
            let o = offsets.buffer
            for d in 0..<(o.count - 1) where o[d] < o[d + 1] { body(Int(o[d])) }
        } else {
            for s in slots.buffer where s.key != GridLevel.empty { body(Int(s.start)) }
        }
    }

    /// The head of the cell run at `start`: its interior fence ids (two
    /// `Int32`s to a word; −(f+1) for a fence of several parts, when
    /// `multiPart`), how many boundary entries follow, the word where
    /// the first of them starts, and `bound`, the most fences the run can
    /// report (its interior ids and boundary entries).
    @inline(__always)
    static func head(_ w: UnsafeBufferPointer<UInt64>, at start: Int) -> (
        interior: UnsafeBufferPointer<Int32>, multiPart: Bool, boundary: Int, entries: Int,
        bound: Int
    ) {
        let header = w[start]
        let n = Int(UInt32(truncatingIfNeeded: header) & 0x7FFF_FFFF)
        let ids = UnsafeRawPointer(w.baseAddress! + start + 1).assumingMemoryBound(to: Int32.self)
        let boundary = Int(header >> 32)
        return (
            UnsafeBufferPointer(start: ids, count: n), header & IndexBuilder.hasMultiPart != 0,
            boundary, start + 1 + (n + 1) / 2, n + boundary
        )
    }

    /// A boundary entry's first word: its fence, its flags (`IndexBuilder`'s)
    /// and how many edges (four words each) follow it.
    @inline(__always)
    static func entry(_ word: UInt64) -> (fence: Int32, flags: UInt8, edges: Int) {
        let meta = Int32(truncatingIfNeeded: word >> 32)
        return (Int32(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: meta), Int(meta >> 8))
    }

    /// The fences listed in the cell whose run starts at `start`.
    static func fences(at start: Int, _ w: UnsafeBufferPointer<UInt64>) -> [Int32] {
        let run = GridLevel.head(w, at: start)
        var out = run.interior.map { $0 >= 0 ? $0 : -$0 - 1 }
        var i = run.entries
        for _ in 0..<run.boundary {
            let (fence, _, edges) = GridLevel.entry(w[i])
            out.append(fence)
            i += 1 + 4 * edges
        }
        return out
    }

    func allFences(_ w: UnsafeBufferPointer<UInt64>) -> Set<Int32> {
        var out = Set<Int32>()
        forEachRun { out.formUnion(GridLevel.fences(at: $0, w)) }
        return out
    }
}

/// One slot of a grid's open-addressing table: a cell's key and its run.
struct CellSlot: Sendable, BitwiseCopyable {
    var key: UInt64
    /// The run's first word and the word after its last, in the index's words.
    var start: UInt32
    var end: UInt32
}
