import FleetHTTP
import FleetModel
import FleetStorage
import Foundation
import Synchronization

/// Cluster: the alerts other nodes commit, read from the shared database
/// every half second (by alert id, which the nodes take in commit order)
/// and published on this node's live event stream, so that a stream opened
/// on any node carries every node's alerts. Its own thread.
final class ClusterFeed: Sendable {
    private let membership: any ClusterMembership
    private let hub: EventHub
    private let startAfter: Int64
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    static let intervalS = 0.5

    /// Publishes the other nodes' alerts committed after alert `afterId`.
    init(membership: any ClusterMembership, hub: EventHub, afterId: Int64) {
        self.membership = membership
        self.hub = hub
        self.startAfter = afterId
    }

    func start() {
        let thread = Thread { [self] in
            ThreadName.set("fleetd-cluster")
            var cursor = startAfter
            while !stopped.load(ordering: .relaxed) {
                if let alerts = try? membership.othersAlerts(afterId: cursor, limit: 1000),
                    let last = alerts.last
                {
                    cursor = last.id
                    hub.publish(alerts: alerts, positions: [])
                    if alerts.count == 1000 { continue }
                }
                Thread.sleep(forTimeInterval: Self.intervalS)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }
}
