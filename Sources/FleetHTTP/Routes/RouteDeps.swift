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

    /// Who sent `r`: its peer, or the client a trusted proxy names
    /// (`ClientAddress`).
    func client(_ r: APIRequest) -> String {
        ClientAddress.resolve(
            peer: r.context.peer, headers: r.request.headers, trusted: settings.trustedProxies)
    }

    /// A store read, off the event loops.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReading) throws -> T) async throws
        -> T
    {
        let reader = backend.reader
        return try await Blocking.run { () throws -> T in try body(reader) }
    }
}
