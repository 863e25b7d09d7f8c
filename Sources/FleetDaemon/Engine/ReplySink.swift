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
    private let thread = WorkerThread(name: "fleetd-replies")
    /// One reused batch per socket (touched by one thread at a time: the
    /// reply thread, or after `flush` the writer).
    private var replies: [(socket: UDPSocket, batch: ReplyBatch)] = []

    init(metrics: Metrics?) { self.metrics = metrics }

    func committed(_ commit: Commit) {
        let arrivals = commit.arrivals
        if !thread.submit({ [self] in send(arrivals) }) { send(arrivals) }
    }

    /// Sends every batch handed over so far and ends the thread; later
    /// batches are sent at once on the caller's thread.
    func flush() { thread.finish() }

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
