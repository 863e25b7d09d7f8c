import FleetConfig
import FleetStorage
import Logging

/// What route handlers share: the daemon, the authenticator, the event
/// hub, the settings.
struct RouteDeps: Sendable {
    let backend: any APIBackend
    let auth: Authenticator
    let hub: EventHub
    let settings: HTTPSettings
    let logger: Logger
    /// Reports made at once (`http.report_concurrency`).
    let reports: WorkGate

    init(
        backend: any APIBackend, auth: Authenticator, hub: EventHub, settings: HTTPSettings,
        logger: Logger
    ) {
        self.backend = backend
        self.auth = auth
        self.hub = hub
        self.settings = settings
        self.logger = logger
        reports = WorkGate(
            concurrent: settings.reportConcurrency, waiting: 4 * settings.reportConcurrency)
    }

    /// Who sent `r`: its peer, or the client a trusted proxy names
    /// (`ClientAddress`).
    func client(_ r: APIRequest) -> String {
        ClientAddress.resolve(
            peer: r.context.peer, headers: r.request.headers, trusted: settings.trustedProxies)
    }

    /// Whether the caller sees device `id` (`Identity.scope`): always for
    /// callers without a limit; else by the device's group, read from the
    /// store (one indexed row). A route answers a device the caller does
    /// not see exactly as it answers one that does not exist.
    func sees(_ r: APIRequest, _ id: String) async throws -> Bool {
        let scope = r.caller.scope
        guard case .groups = scope else { return scope.admits(device: id, group: nil) }
        return try await read { try Self.sees(scope, id, $0) }
    }

    /// Whether `scope` holds device `id`, read through `reader`: for a
    /// route that reads anyway, in the same hop off the event loop.
    static func sees(_ scope: DeviceScope, _ id: String, _ reader: any StoreReading)
        throws(StoreError) -> Bool
    {
        guard case .groups = scope else { return scope.admits(device: id, group: nil) }
        return scope.admits(device: id, group: try reader.deviceGroup(id))
    }

    /// Throws 404 with `otherwise` (what the route answers for a device
    /// that does not exist; by default `no device ID`) unless the caller sees `id`.
    func admit(_ r: APIRequest, _ id: String, otherwise: String? = nil) async throws {
        guard try await sees(r, id) else {
            throw APIError.notFound(otherwise ?? "no device \(id)")
        }
    }

    /// The devices the caller sees, read from the store; nil for every one.
    func visibleDevices(_ r: APIRequest) async throws -> Set<String>? {
        switch r.caller.scope {
        case .all: return nil
        case .device(let d): return [d]
        case .groups(let groups):
            let all = try await read { try $0.deviceGroups() }
            return Set(all.lazy.filter { groups.contains($0.value) }.map(\.key))
        }
    }

    /// A store read, off the event loops.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReading) throws -> T) async throws
        -> T
    {
        let reader = backend.reader
        return try await Blocking.run { () throws -> T in try body(reader) }
    }
}
