import FleetStorage

/// A consumer of commits: told of each one right after its transaction, in
/// commit order, on the commit stage's writer thread (replies, the alert
/// log, metrics; later the live event stream and the webhook outbox's
/// wake-up). A sink must be quick and must never block: one with slow work
/// hands it to a thread or task of its own. Nothing reaches a sink before
/// it is stored.
protocol CommitSink: Sendable {
    func committed(_ commit: Commit)
}

/// One committed batch, as sinks see it.
struct Commit: Sendable {
    /// What was written, in one transaction.
    var batch: WriteBatch
    /// Its alerts as stored, with their ids.
    var alerts: [AlertRecord]
    /// The arrivals whose fixes it stored, with how each sender is answered.
    var arrivals: [Arrival]
    /// Wall-clock time of the commit, Unix ms.
    var committedMs: Int64
}
