#if canImport(Glibc)
    import Glibc
#endif

/// The nice value of the calling thread. On Linux each thread has a nice
/// value of its own, and setpriority(2) with `PRIO_PROCESS` and `who` 0
/// reads or sets the calling thread's (sched(7), "The nice value").
enum ThreadNice {
    private static let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// The calling thread's nice value (-20…19).
    static var current: Int32 { getpriority(which, 0) }

    /// Sets the calling thread's nice value to `value` (clamped to -20…19).
    /// Returns 0, or the errno of the refusal: lowering a nice value (a
    /// higher priority) needs `CAP_SYS_NICE` or an `RLIMIT_NICE` that allows
    /// it (`setrlimit(2)`; systemd's `LimitNICE=`), else `EACCES`/`EPERM`,
    /// and the thread keeps its value.
    @discardableResult
    static func set(_ value: Int32) -> Int32 {
        setpriority(which, 0, min(max(value, -20), 19)) == 0 ? 0 : errno
    }

    /// Adds `delta` to the calling thread's nice value (up to 19); raising
    /// it needs no privilege.
    static func add(_ delta: Int32) {
        set(current + delta)
    }

    /// Puts the calling thread under `SCHED_IDLE` (sched(7), "SCHED_IDLE:
    /// Scheduling very low priority jobs"): it runs when no ordinary thread
    /// wants the core, and an ordinary thread that wakes takes the core
    /// from it at once, where a raised nice value still runs out its slice
    /// first. Under full load it keeps a sliver of a core (a weight of 3
    /// against 1 024): slowed, never stopped. Needs no privilege (going
    /// back does). Returns 0, or the errno of the refusal.
    @discardableResult
    static func background() -> Int32 {
        var p = sched_param(sched_priority: 0)
        return sched_setscheduler(0, schedIdle, &p) == 0 ? 0 : errno
    }

    /// True when the calling thread runs under `SCHED_IDLE`.
    static var isBackground: Bool { sched_getscheduler(0) == schedIdle }

    /// `SCHED_IDLE` (linux/sched.h), which glibc declares only for `_GNU_SOURCE`.
    private static let schedIdle: Int32 = 5
}
