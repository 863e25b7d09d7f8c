import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The threads that check passwords (bcrypt, about a quarter of a second of
/// a core each), at the lowest CPU priority: nice 19, set per thread
/// (`setpriority(2)`: on Linux the nice value belongs to a thread). When
/// the machine is busy a login flood's checks then take the CPU that
/// ingest and the API leave, instead of a core of their own: measured with
/// `fleetbench attack` (logins). Not Swift's cooperative pool and not
/// Dispatch's, whose threads other work shares. The threads are made when
/// first needed, one per password check allowed at a time
/// (`http.login_concurrency`), and kept for the process's life, waiting.
final class PasswordCheckers: Sendable {
    /// The one set of threads of the process.
    static let shared = PasswordCheckers()

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    /// At least `count` threads (at most 64).
    func ensure(threads count: Int) {
        let add = state.withLock { s -> Int in
            let want = min(64, max(1, count))
            defer { s.threads = max(s.threads, want) }
            return max(0, want - s.threads)
        }
        for _ in 0..<add {
            let t = Thread { [self] in work() }
            t.name = "fleetd-passwords"
            t.start()
        }
    }

    /// Runs `body` on one of the threads; the caller waits without holding
    /// a thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        ensure(threads: 1)
        return await withCheckedContinuation { c in
            state.withLock { $0.jobs.append { c.resume(returning: body()) } }
            ready.signal()
        }
    }

    private func work() {
        #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
        while true {
            ready.wait()
            let job = state.withLock { s in s.jobs.isEmpty ? nil : s.jobs.removeFirst() }
            job?()
        }
    }
}
