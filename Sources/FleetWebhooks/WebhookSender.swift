import AsyncHTTPClient
import FleetStorage
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Sends one signed request to a subscription's URL (AsyncHTTPClient):
/// resolves the host and refuses addresses `WebhookAddressPolicy` does
/// not allow (unless `allow_private`), then connects to the address it
/// checked, so that a second resolution (DNS rebinding) cannot lead
/// elsewhere: through a client whose `dnsOverride` maps the host to that
/// address, so that the request still names the host (`Host`) and TLS
/// still sends and verifies it (SNI, the certificate). Follows no
/// redirect; gives up after the subscription's `timeout_s`. Thread-safe;
/// `shutdown` once done.
public final class WebhookSender: Sendable {
    private let client: HTTPClient
    private let group: any EventLoopGroup
    private let configuration: HTTPClient.Configuration
    private let resolve: Resolver
    /// Clients pinned to one checked address each, by host and address,
    /// the most recently used last (at most `maxPinned`; the least recently
    /// used is shut down beyond).
    private let pinned = Mutex<[(key: String, client: HTTPClient)]>([])
    static let maxPinned = 32

    /// How a host's addresses are found (the system's resolver; a test's own).
    public typealias Resolver = @Sendable (String, Double) async -> Result<[String], WebhookFailure>

    /// `caFile`: CA certificates (PEM) trusted for https receivers besides
    /// the system's (nil: the system's only). `resolve`: how hosts are
    /// resolved (getaddrinfo with a time limit).
    ///
    /// `eventLoopGroup`: where its connections run (nil: NIO's shared group).
    public init(
        caFile: String? = nil, resolve: Resolver? = nil,
        eventLoopGroup: (any EventLoopGroup)? = nil
    ) {
        let group = eventLoopGroup ?? HTTPClient.defaultEventLoopGroup
        self.group = group
        var c = HTTPClient.Configuration(redirectConfiguration: .disallow)
        c.connectionPool = .init(idleTimeout: .seconds(30))
        // A receiver that refuses the connection fails the attempt at once:
        // the outbox's own back-off decides when to try again.
        c.connectionPool.retryConnectionEstablishment = false
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            c.tlsConfiguration = tls
        }
        configuration = c
        self.resolve = resolve ?? { await WebhookResolver.resolve($0, timeoutS: $1) }
        client = HTTPClient(eventLoopGroup: group, configuration: c)
    }

    public func shutdown() async {
        try? await client.shutdown()
        let all = pinned.withLock { p -> [HTTPClient] in
            let clients = p.map(\.client)
            p.removeAll()
            return clients
        }
        for c in all { try? await c.shutdown() }
    }

    /// The client that reaches `host` at `address` only (made on first use).
    private func client(pinning host: String, to address: String) -> HTTPClient {
        let key = host + " " + address
        let (c, evicted) = pinned.withLock { p -> (HTTPClient, HTTPClient?) in
            if let i = p.firstIndex(where: { $0.key == key }) {
                p.append(p.remove(at: i))
                return (p[p.count - 1].client, nil)
            }
            var config = configuration
            config.dnsOverride = [host: address]
            let c = HTTPClient(eventLoopGroup: group, configuration: config)
            p.append((key, c))
            return (c, p.count > Self.maxPinned ? p.removeFirst().client : nil)
        }
        if let evicted { Task { try? await evicted.shutdown() } }
        return c
    }

    /// What came back: the status and `Retry-After`, or why nothing did.
    public enum Outcome: Sendable, Equatable {
        case answered(status: Int, retryAfter: String?)
        case failed(WebhookFailure)
    }

    /// POSTs `body` as message `messageId` to `s`'s URL, signed with its
    /// secret at Unix time `nowS`.
    public func send(
        _ s: WebhookSubscription, secret: WebhookSecret, messageId: String, body: [UInt8],
        nowS: Int64
    ) async -> Outcome {
        guard let host = URLComponents(string: s.url)?.host else {
            return .failed(WebhookFailure("\(s.url) is not a URL"))
        }
        let addresses: [String]
        switch await resolve(host, s.timeoutS) {
        case .failure(let f): return .failed(f)
        case .success(let a): addresses = a
        }
        if !s.allowPrivate {
            for a in addresses {
                if let why = WebhookAddressPolicy.refusal(a) {
                    return .failed(
                        WebhookFailure(
                            "\(host) resolves to \(a), which is \(why): refused (allow_private = true permits it)"
                        ))
                }
            }
        }
        var request = HTTPClientRequest(url: s.url)
        var via = client
        if let address = addresses.first,
            !WebhookResolver.isLiteral(
                host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        {
            via = client(pinning: host, to: address)
        }
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "fleetd-webhooks")
        for h in WebhookSignature.headers(
            secret: secret, id: messageId, timestamp: nowS, body: body)
        {
            request.headers.add(name: h.name, value: h.value)
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = NIODeadline.now() + .milliseconds(Int64(s.timeoutS * 1000))
        do {
            let response = try await via.execute(request, deadline: deadline)
            // Read (and drop) what the receiver says, so that the connection can be kept.
            _ = try? await response.body.collect(upTo: 1 << 16)
            return .answered(
                status: Int(response.status.code),
                retryAfter: response.headers.first(name: "Retry-After"))
        } catch {
            if NIODeadline.now() >= deadline {
                return .failed(WebhookFailure("no answer within \(s.timeoutS) s (\(error))"))
            }
            return .failed(WebhookFailure("\(error)"))
        }
    }
}
