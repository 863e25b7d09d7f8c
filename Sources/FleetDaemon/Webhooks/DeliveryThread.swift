import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The thread webhook deliveries do their work on, `fleetd-webhooks`, below
/// ingest's priority: its nice value is `nice` above the process's
/// (setpriority(2) with `who` 0, which on Linux is the calling thread: each
/// thread has a nice value of its own).
///
/// Acknowledging the devices comes first: an alert storm owes every
/// subscription its alerts, and the work of sending them (reading each
/// batch's alerts through a reader, their JSON) would otherwise take the
/// cores the engine and the writer need while fixes keep arriving. At nice
/// +10 the scheduler gives the thread about a tenth of a core that ingest
/// also wants (CFS weights 110 against 1 024), and every idle cycle, so
/// deliveries are slowed, never stopped.
///
/// A plain thread taking jobs in order (a reader may block it: PostgreSQL's
/// waits on its futures, which an event loop would refuse). Started at the
/// first job, so a daemon never started leaves no thread; `shutdown` lets it
/// finish the jobs it holds and end.
final class DeliveryThread: @unchecked Sendable {
    /// Added to the process's nice value.
    static let nice: Int32 = 10
    private let cond = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private var closed = false

    init() {}

    /// Runs `body` on the thread; throws `CancellationError` once shut down.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let queued = enqueue { c.resume(with: Result { try body() }) }
            if !queued { c.resume(throwing: CancellationError()) }
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        if !started {
            started = true
            let thread = Thread { [self] in work() }
            thread.start()
        }
        cond.signal()
        return true
    }

    private func work() {
        Thread.current.name = "fleetd-webhooks"
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, 0, min(getpriority(which, 0) + Self.nice, 19))
        while true {
            cond.lock()
            while jobs.isEmpty && !closed { cond.wait() }
            let batch = jobs
            jobs.removeAll()
            cond.unlock()
            if batch.isEmpty { return }
            for job in batch { job() }
        }
    }

    /// Refuses further jobs; the thread ends once those it holds are done.
    func shutdown() {
        cond.lock()
        closed = true
        cond.broadcast()
        cond.unlock()
    }
}
