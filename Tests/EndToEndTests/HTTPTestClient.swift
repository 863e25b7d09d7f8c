import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

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
    func events(
        _ path: String, headers: [(String, String)], timeout: Double, retries: Int = 0,
        opened: @escaping @Sendable () -> Void = {},
        until body: @escaping ([SSEEvent]) -> Bool
    ) async throws -> (status: Int, events: [SSEEvent]) {
        var request = HTTPClientRequest(url: base + path)
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        var response = try await Self.shared.execute(request, timeout: .seconds(Int64(timeout) + 5))
        var left = retries
        while response.status == .serviceUnavailable, left > 0 {
            left -= 1
            try await Task.sleep(for: .milliseconds(200))
            response = try await Self.shared.execute(request, timeout: .seconds(Int64(timeout) + 5))
        }
        if response.status == .ok { opened() }
        guard response.status == .ok else {
            var b = try await response.body.collect(upTo: 1 << 16)
            // The error's JSON, as the data of a pseudo-event, for the test's messages.
            var e = SSEEvent("data: x")!
            e.event = "error"
            e.data = b.readString(length: b.readableBytes) ?? ""
            return (Int(response.status.code), [e])
        }
        var seen: [SSEEvent] = []
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        do {
            for try await var chunk in response.body {
                text += chunk.readString(length: chunk.readableBytes) ?? ""
                while let end = text.range(of: "\n\n") {
                    let block = String(text[..<end.lowerBound])
                    text.removeSubrange(..<end.upperBound)
                    if let e = SSEEvent(block) { seen.append(e) }
                }
                if !body(seen) || Date() > deadline { break }
            }
        } catch {
            // The server ended the stream (shutdown): what came is returned.
        }
        return (200, seen)
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
