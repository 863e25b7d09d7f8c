import CBatchUDP

/// How fleetd sets glibc's allocator: when it gives memory back, and how it
/// keeps small freed blocks. See `mallopt(3)`.
///
/// **`M_MMAP_THRESHOLD`.** glibc serves a large block from an `mmap` of its
/// own (returned to the system when freed) only above a threshold that,
/// left alone, rises to the size of the largest such block freed (up to 32
/// MiB). A burst (an alert storm's group commits, a full queue of fixes)
/// then leaves its arrays on the heap, where the memory stays resident
/// after they are freed. Fixing the threshold keeps it where it is set:
/// measured on the shared harness's storm, fleetd's resident memory after
/// it went from 491 to 385 MB (`docs/benchmarks.md`).
///
/// **`M_MXFAST`.** A freed block of up to 128 bytes goes to a "fastbin"
/// of its arena, unmerged, and stays there until the next large request
/// on that arena sweeps every fastbin (`malloc_consolidate`). The tracking
/// threads allocate a storm's alerts, the writer and the sinks free them:
/// millions of small blocks land in the tracking threads' fastbins, and
/// the first large allocation there after the storm walked them all,
/// holding the first batch of the next load for 20–40 ms (measured on the
/// shared harness: p99 acknowledgement 24–52 ms at 50 000 fixes/s just
/// after the storm, 9–15 ms with fastbins off). With fastbins off a
/// small free is merged at once (the per-thread cache still takes most).
public enum AllocatorPolicy {
    /// Blocks of this size or larger get a mapping of their own, bytes.
    public static let mmapThresholdBytes: Int32 = 256 * 1024
    /// Largest block kept in a fastbin, bytes: 0, none.
    public static let maxFastBytes: Int32 = 0

    /// Sets the threshold and the fastbins' limit, each unless
    /// `GLIBC_TUNABLES` already sets it (the operator's choice wins).
    /// Returns the settings made here (`mmap_threshold`, `mxfast`).
    @discardableResult
    public static func apply(environment: [String: String]) -> [String] {
        let tunables = environment["GLIBC_TUNABLES"] ?? ""
        var made: [String] = []
        if !tunables.contains("glibc.malloc.mmap_threshold"),
            cbu_set_mmap_threshold(mmapThresholdBytes) == 1
        {
            made.append("mmap_threshold")
        }
        if !tunables.contains("glibc.malloc.mxfast"), cbu_set_max_fast(maxFastBytes) == 1 {
            made.append("mxfast")
        }
        return made
    }
}
