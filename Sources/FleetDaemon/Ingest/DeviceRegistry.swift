import Synchronization

/// The registered device ids the door checks when unknown devices are
/// refused (`[devices] accept_unknown = false`). Thread-safe; replaced
/// whole when the registry is re-read.
final class DeviceRegistry: Sendable {
    private let ids: Mutex<Set<String>>

    init(_ ids: Set<String>) { self.ids = Mutex(ids) }

    func contains(_ id: String) -> Bool { ids.withLock { $0.contains(id) } }

    func replace(_ fresh: Set<String>) { ids.withLock { $0 = fresh } }
}
