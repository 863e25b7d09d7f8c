/// Sends the replies of a committed batch, whatever their protocol, from
/// the writer thread (`sendmmsg`, one call per socket per 1 024 replies),
/// gathered in reused per-socket batches (no allocation per reply). The
/// daemon lists it last, so that what a sender may look at once
/// acknowledged (alert log lines, counters) is already there.
/// `@unchecked`: only the writer thread calls it.
final class ReplySink: CommitSink, @unchecked Sendable {
    /// One reused batch per socket.
    private var replies: [(socket: UDPSocket, batch: ReplyBatch)] = []

    func committed(_ commit: Commit) {
        // Datagrams read in place (no copy of each, with its arrays retained).
        commit.datagrams.withUnsafeBufferPointer { items in
            for i in items.indices {
                items[i].waiter?.committed()
                guard let socket = items[i].replyTo?.socket else { continue }
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
    }
}
