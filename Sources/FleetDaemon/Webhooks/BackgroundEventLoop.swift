import NIOCore
import NIOPosix

/// One event loop on a thread of its own under `SCHED_IDLE`
/// (`ThreadNice.background`), and a task executor on it: the webhook
/// deliveries' HTTP and their tasks run there, so that a backlog going
/// out takes a core only when ingest leaves it idle, and gives it back at
/// once when ingest wakes.
final class BackgroundEventLoop: TaskExecutor, Sendable {
    let group: MultiThreadedEventLoopGroup
    let loop: any EventLoop

    init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        loop.execute { ThreadNice.background() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Stops the loop's thread (after every client on it has shut down).
    func shutdown() async {
        try? await group.shutdownGracefully()
    }
}
