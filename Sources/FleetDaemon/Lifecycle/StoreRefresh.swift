import FleetStorage
import Foundation

/// Reads something from the store again and again on a thread of its own
/// (a dispatch queue, never Swift's cooperative pool) and hands it to the
/// door: the device registry every 2 s while unknown devices are refused
/// (`fleetctl devices add` edits it under a running daemon), and on a
/// cluster node every device id the other nodes took, so that an id another
/// node admitted is not counted against this node's new-id budget. A read
/// that fails is tried again at the next tick.
final class StoreRefresh: @unchecked Sendable {
    private let name: String
    private let every: TimeInterval
    private let tick: @Sendable () -> Void
    /// Created when started (libdispatch traps on releasing a source never resumed).
    private var timer: (any DispatchSourceTimer)?

    /// `read` runs on the refresh's own queue every `every` seconds; what
    /// it returns goes to `apply`.
    init<T>(
        _ name: String, every: TimeInterval, read: @escaping @Sendable () throws -> T,
        apply: @escaping @Sendable (T) -> Void
    ) {
        self.name = name
        self.every = every
        self.tick = { if let fresh = try? read() { apply(fresh) } }
    }

    /// The registry of a closed door, read every 2 s.
    static func registry(_ registry: DeviceRegistry, reader: any StoreReading) -> StoreRefresh {
        StoreRefresh(
            "registry refresh", every: 2, read: { try reader.registeredDevices() },
            apply: { registry.replace($0) })
    }

    /// Every device id in the shared store, learnt by a cluster node's
    /// new-id budget every `every` seconds.
    static func knownDevices(
        _ budget: NewDeviceBudget, reader: any StoreReading, every: TimeInterval
    ) -> StoreRefresh {
        StoreRefresh(
            "known devices refresh", every: every, read: { try reader.deviceIdents() },
            apply: { budget.learn($0) })
    }

    /// Each grouped device's group, every `DeviceGroups.refreshS` seconds
    /// while `needed` says something uses them (fences limited to groups,
    /// streams of users limited to groups): one indexed read of the
    /// grouped devices.
    static func deviceGroups(
        _ groups: DeviceGroups, reader: any StoreReading, needed: @escaping @Sendable () -> Bool
    ) -> StoreRefresh {
        StoreRefresh(
            "device groups refresh", every: DeviceGroups.refreshS,
            read: { needed() ? try reader.deviceGroups() : nil },
            apply: { if let all = $0 { groups.load(all) } })
    }

    /// As a service of the daemon's group.
    var service: ComponentService {
        ComponentService(name, start: start, stop: stop)
    }

    private func start() {
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "fleetd.\(name)"))
        t.setEventHandler(handler: tick)
        t.schedule(deadline: .now() + every, repeating: every)
        t.resume()
        timer = t
    }

    private func stop() { timer?.cancel() }
}
