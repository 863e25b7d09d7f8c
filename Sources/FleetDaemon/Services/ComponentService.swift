import Foundation
import ServiceLifecycle

/// One component of the daemon (a listener, a stage, the status reporter,
/// the store's upkeep) as a `Service` of the daemon's `ServiceGroup`: it is
/// started when the group runs and stopped when the group shuts down
/// gracefully. The group stops its services one at a time in the reverse of
/// their order, so a component is stopped only after every one listed after
/// it has finished stopping. A component may own threads; `stop` may block
/// until they end, and runs on a thread of its own so that it never holds up
/// Swift's cooperative pool.
public struct ComponentService: Service, CustomStringConvertible {
    /// For logs and the shutdown order (`listener json`, `commit stage`).
    public let description: String
    private let start: @Sendable () -> Void
    private let stop: @Sendable () -> Void

    public init(
        _ name: String, start: @escaping @Sendable () -> Void,
        stop: @escaping @Sendable () -> Void
    ) {
        self.description = name
        self.start = start
        self.stop = stop
    }

    public func run() async throws {
        start()
        // Returns at graceful shutdown (or throws when the group is cancelled).
        try? await gracefulShutdown()
        await Self.blocking(stop)
    }

    /// Runs `body` on a new thread and waits for it without blocking a
    /// thread of the cooperative pool.
    static func blocking(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
            let t = Thread {
                body()
                k.resume()
            }
            t.start()
        }
    }
}
