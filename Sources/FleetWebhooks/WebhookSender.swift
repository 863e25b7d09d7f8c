import AsyncHTTPClient
import FleetStorage
import Foundation
import NIOCore
import NIOHTTP1

/// Sends one signed request to a subscription's URL (AsyncHTTPClient):
/// resolves the host and refuses addresses `WebhookAddressPolicy` does
/// not allow (unless `allow_private`); for `http` URLs connects to the
/// address it checked (with the `Host` header of the URL), so that a
/// second resolution cannot lead elsewhere; follows no redirect; gives up
/// after the subscription's `timeout_s`. Thread-safe; `shutdown` once done.
public final class WebhookSender: Sendable {
    private let client: HTTPClient

    public init() {
        var c = HTTPClient.Configuration(redirectConfiguration: .disallow)
        c.connectionPool = .init(idleTimeout: .seconds(30))
        // A receiver that refuses the connection fails the attempt at once:
        // the outbox's own back-off decides when to try again.
        c.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: c)
    }

    public func shutdown() async {
        try? await client.shutdown()
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
        guard var url = URLComponents(string: s.url), let host = url.host,
            let scheme = url.scheme?.lowercased()
        else { return .failed(WebhookFailure("\(s.url) is not a URL")) }
        let addresses: [String]
        switch await WebhookResolver.resolve(host, timeoutS: s.timeoutS) {
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
        if scheme == "http", let address = addresses.first,
            !WebhookResolver.isLiteral(
                host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        {
            request.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
            url.host = address.contains(":") ? "[\(address)]" : address
            if let pinned = url.string { request.url = pinned }
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
            let response = try await client.execute(request, deadline: deadline)
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
