import FleetModel
import Foundation

/// A named thread of its own that runs the jobs handed to it, in order
/// (`ReplySink`'s `fleetd-replies`, the webhook deliveries'
/// `fleetd-webhooks`). Started at the first job, so a daemon never started
/// leaves no thread. `background`: the thread runs under `SCHED_IDLE`
/// (`ThreadNice.background`), only when ingest leaves a core idle.
///
/// `close` refuses further jobs; the thread ends once it has run those it
/// holds (`finish` also waits for that). A refused job is the caller's.
final class WorkerThread: @unchecked Sendable {
    let name: String
    let background: Bool
    private let cond = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private var closing = false
    private let done = DispatchSemaphore(value: 0)

    init(name: String, background: Bool = false) {
        self.name = name
        self.background = background
    }

    /// Queues `job`; false (and `job` not run) once closed.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        guard !closing else { return false }
        jobs.append(job)
        if !started {
            started = true
            let thread = Thread { [self] in
                work()
                done.signal()
            }
            thread.start()
        }
        cond.signal()
        return true
    }

    /// Runs `body` on the thread; throws `CancellationError` once closed.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let queued = submit { c.resume(with: Result { try body() }) }
            if !queued { c.resume(throwing: CancellationError()) }
        }
    }

    /// Refuses further jobs; returns whether the thread was started (and so
    /// will end after the jobs it holds).
    @discardableResult
    func close() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        let wasOpen = !closing
        closing = true
        cond.broadcast()
        return wasOpen && started
    }

    /// Refuses further jobs and waits until the thread has run those it
    /// holds and ended (blocking: not for the cooperative pool).
    func finish() {
        if close() { done.wait() }
    }

    private func work() {
        ThreadName.set(name)
        if background { ThreadNice.background() }
        while true {
            cond.lock()
            while jobs.isEmpty && !closing { cond.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            cond.unlock()
            if batch.isEmpty { return }
            for job in batch { job() }
        }
    }
}
