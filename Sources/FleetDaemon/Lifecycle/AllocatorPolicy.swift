import CBatchUDP

/// How fleetd asks glibc's allocator to give memory back.
///
/// glibc serves a large block from an `mmap` of its own (returned to the
/// system when freed) only above a threshold that, left alone, rises to
/// the size of the largest such block freed (up to 32 MiB). A burst (an
/// alert storm's group commits, a full queue of fixes) then leaves its
/// arrays on the heap, where the memory stays resident after they are
/// freed. Fixing the threshold keeps it where it is set: measured on the
/// shared harness's storm, fleetd's resident memory after it went from
/// 491 to 385 MB (`docs/benchmarks.md`). See `mallopt(3)`, `M_MMAP_THRESHOLD`.
public enum AllocatorPolicy {
    /// Blocks of this size or larger get a mapping of their own, bytes.
    public static let mmapThresholdBytes: Int32 = 256 * 1024

    /// Sets the threshold, unless `GLIBC_TUNABLES` already sets one (the
    /// operator's choice wins). Returns whether it was set here.
    @discardableResult
    public static func apply(environment: [String: String]) -> Bool {
        if environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.mmap_threshold") == true {
            return false
        }
        return cbu_set_mmap_threshold(mmapThresholdBytes) == 1
    }
}
