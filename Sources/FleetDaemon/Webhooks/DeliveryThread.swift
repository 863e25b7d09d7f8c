import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The thread webhook deliveries do their work on, `fleetd-webhooks`, below
/// ingest's priority: its nice value is `nice` above the process's
/// (setpriority(2) with `who` 0, which on Linux is the calling thread: each
/// thread has a nice value of its own).
///
/// Acknowledging the devices comes first: an alert storm owes every
/// subscription its alerts, and the work of sending them (reading the
/// alerts, their JSON, the requests) would otherwise take the cores the
/// engine and the writer need while fixes keep arriving. At nice +10 the
/// scheduler gives the thread about a tenth of a core that ingest also
/// wants (CFS weights 110 against 1 024), and every idle cycle, so
/// deliveries are slowed, never stopped.
///
/// One event loop (NIO): the HTTP clients' connections, and `run`'s work,
/// which may block it (a reader's query) since nothing else runs there.
/// Started at first use, so a daemon never started leaves no thread.
final class DeliveryThread: Sendable {
    /// Added to the process's nice value.
    static let nice: Int32 = 10
    private let group = Mutex<MultiThreadedEventLoopGroup?>(nil)

    init() {}

    /// The thread's event loop (started, and lowered, on the first call).
    var loop: any EventLoop { eventLoopGroup.next() }

    /// The group of the one thread, for the HTTP clients.
    var eventLoopGroup: MultiThreadedEventLoopGroup {
        group.withLock { g in
            if let g { return g }
            let made = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            made.next().execute {
                Thread.current.name = "fleetd-webhooks"
                let now = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                _ = setpriority(
                    __priority_which_t(PRIO_PROCESS.rawValue), 0, min(now + DeliveryThread.nice, 19)
                )
            }
            g = made
            return made
        }
    }

    /// Runs `body` on the thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await loop.submit(body).get()
    }

    /// Stops the thread, if it was started.
    func shutdown() async {
        guard
            let g = group.withLock({ g in
                defer { g = nil }; return g
            })
        else { return }
        try? await g.shutdownGracefully()
    }
}
