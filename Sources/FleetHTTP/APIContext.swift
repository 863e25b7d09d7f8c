import Hummingbird
import NIOCore

/// The request context of fleetd's servers: Hummingbird's core storage and
/// the peer's address (for login rate limits and logs).
public struct APIContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address as text ("" when unknown, as over a Unix socket).
    public let peer: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? ""
    }
}
