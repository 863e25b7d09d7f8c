import FleetModel
import Foundation

/// Sends the replies of each committed batch, whatever their protocol, on a
/// thread of its own (`fleetd-replies`): the writer hands a batch's arrivals
/// over and goes on to the next commit, while the replies go out
/// (`sendmmsg`, one call per socket per 1 024 replies), gathered in reused
/// per-socket batches (no allocation per reply). Sent in commit order; the
/// daemon lists it last among the sinks, so that what a sender may look at
/// once acknowledged (alert log lines, counters) is already there. Observes
/// each batch's acknowledgement latency (its oldest arrival's) once, when
/// its replies are sent.
///
/// Why a thread: on loopback a reply costs 5–10 µs to send (the kernel
/// delivers it to the receiver in the sender's call), 2–14 ms a batch at
/// 50 000 fixes/s, and the next commit waited for it on the writer thread.
/// The thread starts with the first batch; `flush` (at shutdown, after the
/// writer's last commit) sends what is left and ends it.
final class ReplySink: CommitSink, @unchecked Sendable {
    private let metrics: Metrics?
    /// Batches handed over and not yet sent, and whether `flush` was called.
    private let cond = NSCondition()
    private var pending: [[Arrival]] = []
    private var closing = false
    /// The thread has ended (after `flush`): batches are sent by their caller.
    private var ended = false
    private let done = DispatchSemaphore(value: 0)
    /// One reused batch per socket (the reply thread's alone).
    private var replies: [(socket: UDPSocket, batch: ReplyBatch)] = []

    /// The thread was started (at the first batch).
    private var started = false

    init(metrics: Metrics?) { self.metrics = metrics }

    func committed(_ commit: Commit) {
        cond.lock()
        if ended {
            cond.unlock()
            send(commit.arrivals)
            return
        }
        pending.append(commit.arrivals)
        if !started {
            started = true
            let thread = Thread { [self] in
                Thread.current.name = "fleetd-replies"
                run()
                done.signal()
            }
            thread.start()
        }
        cond.signal()
        cond.unlock()
    }

    /// Sends every batch handed over so far and ends the thread; later
    /// batches are sent at once on the caller's thread.
    func flush() {
        cond.lock()
        let wait = started && !closing
        closing = true
        if !started { ended = true }
        cond.signal()
        cond.unlock()
        if wait { done.wait() }
    }

    private func run() {
        while true {
            cond.lock()
            while pending.isEmpty && !closing { cond.wait() }
            let taken = pending
            pending.removeAll(keepingCapacity: true)
            let end = closing && taken.isEmpty
            if end { ended = true }
            cond.unlock()
            if end { return }
            for arrivals in taken { send(arrivals) }
        }
    }

    private func send(_ arrivals: [Arrival]) {
        var oldest = Int64.max
        // Arrivals read in place (no copy of each, with its arrays retained).
        arrivals.withUnsafeBufferPointer { items in
            for i in items.indices {
                oldest = min(oldest, items[i].receivedMs)
                items[i].ack.committed()
                guard let socket = items[i].replySocket else { continue }
                let k =
                    replies.firstIndex { $0.socket === socket }
                    ?? {
                        replies.append((socket, ReplyBatch()))
                        return replies.count - 1
                    }()
                items[i].appendReply(to: &replies[k].batch)
            }
        }
        for k in replies.indices where !replies[k].batch.isEmpty {
            replies[k].socket.send(replies[k].batch)
            replies[k].batch.removeAll()
        }
        if let metrics, oldest != .max {
            let now = WallClock.system.nowMs()
            metrics.ackLatency.record(.milliseconds(max(now - oldest, 0)))
        }
    }
}
