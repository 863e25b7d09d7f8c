import FleetStorage
import Foundation

/// Keeps the door's copy of the device registry current while unknown
/// devices are refused: `fleetctl devices add` edits it under a running
/// daemon, so it is read again every 2 s.
final class RegistryRefresh: @unchecked Sendable {
    private let registry: DeviceRegistry
    private let reader: any StoreReading
    /// Created when started (libdispatch traps on releasing a source never resumed).
    private var timer: (any DispatchSourceTimer)?

    init(registry: DeviceRegistry, reader: any StoreReading) {
        self.registry = registry
        self.reader = reader
    }

    /// As a service of the daemon's group.
    var service: ComponentService {
        ComponentService("registry refresh", start: start, stop: stop)
    }

    private func start() {
        let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "fleetd.registry"))
        t.setEventHandler { [registry, reader] in
            if let fresh = try? reader.registeredDevices() { registry.replace(fresh) }
        }
        t.schedule(deadline: .now() + 2, repeating: 2)
        t.resume()
        timer = t
    }

    private func stop() { timer?.cancel() }
}
