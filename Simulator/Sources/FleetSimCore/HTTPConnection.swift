import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 client connection over a TCP socket, as a phone app keeps
/// one: a request, then its whole response (`Content-Length` bodies; the
/// OsmAnd door sends no other kind), reconnecting when the server closed it.
/// Blocking, with a timeout on each exchange. Not thread-safe.
public final class HTTPConnection {
    public let host: String
    public let port: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    deinit { disconnect() }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends `method target` (a path and query) with `body`; returns the
    /// status and the body. Throws `Failure` on a connection problem or
    /// when no whole response came within `timeoutMs`.
    public func exchange(
        _ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil,
        headers: [(String, String)] = [], timeoutMs: Int32
    ) throws -> (status: Int, body: String) {
        if fd < 0 { try connect() }
        var head =
            "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUser-Agent: fleetsim\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        do {
            try write(request)
            return try readResponse(timeoutMs: timeoutMs)
        } catch {
            disconnect()
            throw error
        }
    }

    private func connect() throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw Failure(description: "cannot resolve \(host):\(port)")
        }
        defer { freeaddrinfo(list) }
        let s = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else {
            throw Failure(description: "socket: \(String(cString: strerror(errno)))")
        }
        guard Glibc.connect(s, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let e = String(cString: strerror(errno))
            close(s)
            throw Failure(description: "cannot connect to \(host):\(port): \(e)")
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        fd = s
        buffer = []
    }

    private func disconnect() {
        if fd >= 0 { close(fd) }
        fd = -1
        buffer = []
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else {
                throw Failure(description: "send: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
    }

    /// Reads more bytes into `buffer`, waiting at most until `deadline`.
    private func fill(until deadline: Date) throws {
        let left = Int32(max(deadline.timeIntervalSinceNow * 1000, 0))
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, left) > 0 else { throw Failure(description: "no response in time") }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "the server closed the connection") }
        buffer += chunk[0..<n]
    }

    private func readResponse(timeoutMs: Int32) throws -> (status: Int, body: String) {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        let end: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if buffer.count >= 4 {
                headEnd = (0...(buffer.count - 4)).first { buffer[$0..<$0 + 4].elementsEqual(end) }
            }
            if headEnd == nil { try fill(until: deadline) }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw Failure(description: "not an HTTP response: \(lines.first ?? "")")
        }
        var length = 0
        var closes = false
        for line in lines.dropFirst() {
            let kv = line.split(separator: ":", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard kv.count == 2 else { continue }
            if kv[0] == "content-length" { length = Int(kv[1]) ?? 0 }
            if kv[0] == "connection", kv[1] == "close" { closes = true }
        }
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length { try fill(until: deadline) }
        let body = String(decoding: buffer[bodyStart..<bodyStart + length], as: UTF8.self)
        buffer.removeFirst(bodyStart + length)
        if closes { disconnect() }
        return (status, body)
    }
}
