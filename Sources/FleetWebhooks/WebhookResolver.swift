import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Resolves a webhook's host name to its addresses (getaddrinfo, on a
/// thread of its own so that a slow resolver holds up no task), within a
/// time limit. An IP literal is its own answer.
enum WebhookResolver {
    /// The addresses of `host` as text, or why there are none.
    static func resolve(_ host: String, timeoutS: Double) async -> Result<[String], WebhookFailure>
    {
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if isLiteral(bare) { return .success([bare]) }
        let once = Once()
        let finish: @Sendable (Result<[String], WebhookFailure>) -> Void = { r in
            once.k.withLock { c in
                c?.resume(returning: r)
                c = nil
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { k in
                once.k.withLock { $0 = k }
                if Task.isCancelled { finish(.failure(WebhookFailure("cancelled"))) }
                Thread.detachNewThread { finish(lookup(bare)) }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeoutS) {
                    finish(
                        .failure(
                            WebhookFailure("cannot resolve \(bare): no answer in \(timeoutS) s")))
                }
            }
        } onCancel: {
            finish(.failure(WebhookFailure("cancelled")))
        }
    }

    /// The continuation the first of the lookup and the time limit resumes.
    private final class Once: Sendable {
        let k = Mutex<CheckedContinuation<Result<[String], WebhookFailure>, Never>?>(nil)
    }

    static func isLiteral(_ s: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    private static func lookup(_ host: String) -> Result<[String], WebhookFailure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(
                WebhookFailure("cannot resolve \(host): \(String(cString: gai_strerror(rc)))"))
        }
        defer { freeaddrinfo(list) }
        var out: [String] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if a.pointee.ai_family == AF_INET {
                a.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var addr = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &addr, &buf, socklen_t(buf.count))
                }
            } else if a.pointee.ai_family == AF_INET6 {
                a.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var addr = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &addr, &buf, socklen_t(buf.count))
                }
            }
            let text = String(
                decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty, !out.contains(text) { out.append(text) }
            p = a.pointee.ai_next
        }
        return out.isEmpty ? .failure(WebhookFailure("\(host) has no address")) : .success(out)
    }
}

/// Why a request could not be made or got no answer.
public struct WebhookFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
