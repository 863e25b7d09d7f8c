import FleetHTTP

/// Hands each commit's alerts and positions to the live event stream's
/// hub (which fans them out on its own task: the writer never waits).
struct LiveSink: CommitSink {
    let hub: EventHub

    func committed(_ commit: Commit) {
        hub.publish(alerts: commit.alerts, positions: commit.batch.positions)
    }
}
