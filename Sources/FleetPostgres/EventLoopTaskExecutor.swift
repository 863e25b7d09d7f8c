import NIOCore

/// A task executor that runs jobs on one NIO event loop (SE-0417, task
/// executor preference): the async calls postgres-nio offers only as
/// `async` (`COPY`) run where the connection's I/O runs, never on Swift's
/// cooperative pool. The store is called synchronously from threads that
/// may be the pool's own (an in-process caller, a test); a task queued on
/// the pool while both its threads wait for it would never run.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
