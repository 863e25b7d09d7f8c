import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP client (AsyncHTTPClient) for the API's end-to-end tests:
/// whole responses, and Server-Sent Events read as they arrive.
struct HTTPTestClient {
    let base: String
    /// One connection per request: the tests start and stop many daemons
    /// on kernel-chosen ports, and a pooled connection must never carry a
    /// request to another test's daemon (or be retried into a second stream).
    static let shared: HTTPClient = {
        var c = HTTPClient.Configuration()
        c.maximumUsesPerConnection = 1
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: c)
    }()

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
        }
        var items: [[String: Any]] { json["items"] as? [[String: Any]] ?? [] }
    }

    init(port: Int) { base = "http://127.0.0.1:\(port)" }

    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: String? = nil,
        bytes: [UInt8]? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        if let bytes { request.body = .bytes(ByteBuffer(bytes: bytes)) }
        let response = try await Self.shared.execute(request, timeout: .seconds(30))
        var buffer = try await response.body.collect(upTo: 64 << 20)
        return Reply(
            status: Int(response.status.code), headers: response.headers,
            body: buffer.readString(length: buffer.readableBytes) ?? "")
    }

    func get(_ path: String, _ auth: [(String, String)] = []) async throws -> Reply {
        try await send(.GET, path, headers: auth)
    }

    /// `Authorization: Bearer` for a token.
    static func bearer(_ token: String) -> [(String, String)] {
        [("Authorization", "Bearer \(token)")]
    }

    /// Opens an event stream and calls `body` with each event (`id`, `event`,
    /// `data`) until it returns false or `timeout` passes. Returns the events seen.
    /// `opened` is called once a 200 response's head has arrived. A 503 is
    /// retried `retries` times, 200 ms apart, as EventSource reconnects.
    /// Streams are read over a socket of their own (a plain HTTP/1.1
    /// request, the chunked body read as it comes), never a pooled one.
    /// With `reconnect`, a stream the server ends is opened again with
    /// `Last-Event-ID`, as EventSource does, until `timeout`.
    func events(
        _ path: String, headers: [(String, String)], timeout: Double, retries: Int = 0,
        reconnect: Bool = false, opened: @escaping @Sendable () -> Void = {},
        until body: @escaping ([SSEEvent]) -> Bool
    ) async throws -> (status: Int, events: [SSEEvent]) {
        let port = Int(base.split(separator: ":").last!)!
        var left = retries
        while true {
            let stream = try EventSocket(port: port, path: path, headers: headers)
            let deadline = Date().addingTimeInterval(timeout)
            let status = try await stream.head(deadline: deadline)
            if status == 503, left > 0 {
                left -= 1
                try await Task.sleep(for: .milliseconds(200))
                continue
            }
            guard status == 200 else {
                var e = SSEEvent("data: x")!
                e.event = "error"
                e.data = stream.rest()
                return (status, [e])
            }
            opened()
            var seen: [SSEEvent] = []
            var current = stream
            // Each loop reads what has arrived before it looks at the deadline
            // (`next` does too): a turn that came late still sees the events.
            repeat {
                var text = ""
                var ended = false
                while true {
                    guard let chunk = try await current.next(deadline: deadline) else {
                        ended = true
                        break
                    }
                    text += chunk
                    while let end = text.range(of: "\n\n") {
                        let block = String(text[..<end.lowerBound])
                        text.removeSubrange(..<end.upperBound)
                        if let e = SSEEvent(block) { seen.append(e) }
                    }
                    if !body(seen) { return (200, seen) }
                }
                // Ended by the server: reconnect as EventSource does, from the last alert seen.
                guard ended, reconnect, Date() < deadline else { break }
                try await Task.sleep(for: .milliseconds(200))
                let last = seen.last { $0.id != nil }?.id ?? "0"
                current = try EventSocket(
                    port: port, path: path, headers: headers + [("Last-Event-ID", last)])
                guard try await current.head(deadline: deadline) == 200 else { continue }
            } while Date() < deadline
            return (200, seen)
        }
    }
}

/// One event-stream request on its own TCP connection: the response head,
/// then the chunked body's text as it arrives. Closed when released.
final class EventSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, path: String, headers: [(String, String)]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw E2EError("cannot connect to 127.0.0.1:\(port)") }
        var request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    /// Reads more, waiting (without blocking a thread of the pool for long) until `deadline`.
    /// What has arrived is read before the deadline is looked at: a task that
    /// got no turn while other tests held the pool's threads must not take
    /// the server's late-read answer for a missing one.
    private func fill(deadline: Date) async throws -> Bool {
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 0) > 0 {
                var chunk = [UInt8](repeating: 0, count: 16 * 1024)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return false }
                buffer += chunk[0..<n]
                return true
            }
            if Date() >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func line() -> String? {
        guard let i = buffer.firstIndex(of: 10) else { return nil }
        let l = String(decoding: buffer[0..<i], as: UTF8.self).trimmingCharacters(in: ["\r"])
        buffer.removeFirst(i + 1)
        return l
    }

    /// The status; the head's other lines are read and dropped.
    func head(deadline: Date) async throws -> Int {
        var status = 0
        while true {
            guard let l = line() else {
                guard try await fill(deadline: deadline) else {
                    throw E2EError("no response head in time")
                }
                continue
            }
            if status == 0 {
                status = Int(l.split(separator: " ").dropFirst().first ?? "") ?? -1
            } else if l.isEmpty {
                return status
            }
        }
    }

    /// What is left in the buffer (an error's body), as text.
    func rest() -> String { String(decoding: buffer, as: UTF8.self) }

    /// The next chunk's text; nil when the body ended or nothing came by `deadline`.
    func next(deadline: Date) async throws -> String? {
        while true {
            if let sizeEnd = buffer.firstIndex(of: 10) {
                let sizeText = String(decoding: buffer[0..<sizeEnd], as: UTF8.self)
                    .trimmingCharacters(in: ["\r"])
                guard let size = Int(sizeText, radix: 16) else { return nil }
                if size == 0 { return nil }
                let start = sizeEnd + 1
                if buffer.count >= start + size + 2 {
                    let text = String(decoding: buffer[start..<start + size], as: UTF8.self)
                    buffer.removeFirst(start + size + 2)
                    return text
                }
            }
            guard try await fill(deadline: deadline) else { return nil }
        }
    }
}

/// One Server-Sent Event (comments and `retry:` lines are not events).
struct SSEEvent {
    var id: String?
    var event = "message"
    var data = ""

    init?(_ block: String) {
        var any = false
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("id: ") {
                id = String(line.dropFirst(4))
                any = true
            } else if line.hasPrefix("event: ") {
                event = String(line.dropFirst(7))
                any = true
            } else if line.hasPrefix("data: ") {
                data += String(line.dropFirst(6))
                any = true
            }
        }
        if !any { return nil }
    }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
    }
}
