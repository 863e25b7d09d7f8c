import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import FleetDaemon

/// The daemon's components as services: all started, stopped one at a
/// time in the reverse order at a graceful shutdown.
@Suite struct ServiceOrderTests {
    @Test func componentsStopInReverseOrderEachAfterTheNextHasStopped() async throws {
        let events = Mutex<[String]>([])
        let names = ["status", "commit", "tracking", "listener"]
        let services = names.map { name in
            ComponentService(
                name, start: { events.withLock { $0.append("start \(name)") } },
                stop: {
                    events.withLock { $0.append("stop \(name)") }
                    usleep(20_000)  // a slow stop must finish before the next begins
                    events.withLock { $0.append("stopped \(name)") }
                })
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while events.withLock({ $0.count }) < names.count {
                try await Task.sleep(for: .milliseconds(5))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let all = events.withLock { $0 }
        #expect(Set(all.prefix(4)) == Set(names.map { "start \($0)" }))
        #expect(
            Array(all.dropFirst(4))
                == names.reversed().flatMap { ["stop \($0)", "stopped \($0)"] })
    }
}
