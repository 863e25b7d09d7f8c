#if canImport(Glibc)
    import Glibc
#endif

/// An immutable array of plain values, in memory the kernel is asked to back
/// with 2 MiB pages when it is large (`madvise(MADV_HUGEPAGE)`, see
/// madvise(2) and the kernel's transparent huge pages documentation).
///
/// The index's tables are read at random: with 4 KiB pages nearly every
/// probe of a 66 MB table also misses the TLB and walks the page tables.
/// When the kernel declines (transparent huge pages set to `never`) the
/// memory is ordinary; only the speed differs.
final class LargePageBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    // @unchecked: the memory is written once, in init, and only read after.
    let base: UnsafeMutablePointer<Element>
    let count: Int

    /// Tables smaller than this (bytes) are allocated as usual.
    static var threshold: Int { 4 << 20 }

    /// A copy of `values`.
    convenience init(_ values: [Element]) {
        self.init(capacity: values.count) { base in
            values.withUnsafeBufferPointer { src in
                if let s = src.baseAddress { base.initialize(from: s, count: values.count) }
            }
            return values.count
        }
    }

    /// Room for `capacity` values, of which `fill` initialises the first
    /// ones and returns how many (at most `capacity`).
    init(capacity: Int, fill: (UnsafeMutablePointer<Element>) -> Int) {
        let bytes = max(1, capacity) * MemoryLayout<Element>.stride
        let huge = 2 << 20
        var memory: UnsafeMutableRawPointer?
        if bytes >= LargePageBuffer.threshold {
            let rounded = (bytes + huge - 1) / huge * huge
            if posix_memalign(&memory, huge, rounded) == 0, let m = memory {
                // Advice only: its failure leaves ordinary pages.
                _ = madvise(m, rounded, MADV_HUGEPAGE)
            }
        }
        if memory == nil {
            memory = malloc(bytes)
        }
        guard let memory else { fatalError("out of memory for a \(bytes)-byte index table") }
        base = memory.bindMemory(to: Element.self, capacity: max(1, capacity))
        count = fill(base)
        precondition(count <= capacity, "filled past the capacity")
    }

    deinit { free(base) }

    var isEmpty: Bool { count == 0 }

    /// The values, valid while the buffer lives.
    @inline(__always)
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows
        -> R
    {
        try body(buffer)
    }
}
