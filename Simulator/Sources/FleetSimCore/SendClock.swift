import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// When each device's newest datagram was first sent (CLOCK_MONOTONIC, ns),
/// for measuring how long what a fix caused (an alert on an event stream)
/// took to reach a client. Written by the load generator, read by others.
public final class SendClock: Sendable {
    private let sent: Mutex<[UInt64]>

    public init(devices: Int) { sent = Mutex([UInt64](repeating: 0, count: devices)) }

    /// `device`'s datagram went out at `ns`.
    public func mark(_ device: Int, _ ns: UInt64) {
        sent.withLock { if device < $0.count { $0[device] = ns } }
    }

    /// When `device`'s newest datagram went out (0: none yet).
    public func last(_ device: Int) -> UInt64 {
        sent.withLock { device >= 0 && device < $0.count ? $0[device] : 0 }
    }

    /// Now on the clock the marks use (CLOCK_MONOTONIC), ns.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
