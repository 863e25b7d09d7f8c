import FleetModel
import Foundation

/// Sends the replies of a committed batch, whatever their protocol, from
/// the writer thread (`sendmmsg`, one call per socket per 1 024 replies),
/// gathered in reused per-socket batches (no allocation per reply). The
/// daemon lists it last, so that what a sender may look at once
/// acknowledged (alert log lines, counters) is already there. Observes
/// each batch's acknowledgement latency (its oldest arrival's) once.
/// `@unchecked`: only the writer thread calls it.
final class ReplySink: CommitSink, @unchecked Sendable {
    /// One reused batch per socket.
    private var replies: [(socket: UDPSocket, batch: ReplyBatch)] = []
    private let metrics: Metrics?

    init(metrics: Metrics?) { self.metrics = metrics }

    func committed(_ commit: Commit) {
        var oldest = Int64.max
        // Arrivals read in place (no copy of each, with its arrays retained).
        commit.arrivals.withUnsafeBufferPointer { items in
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
