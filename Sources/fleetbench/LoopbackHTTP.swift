import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Plain HTTP/1.1 over loopback TCP for the load generators: blocking
/// connect, then non-blocking reads driven by poll(2) (one thread serves
/// hundreds of connections, cheaply, on a machine whose cores fleetd needs).
enum LoopbackHTTP {
    /// A connected socket to 127.0.0.1:`port` (TCP_NODELAY), non-blocking; -1 on failure.
    static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok == 0 else {
            close(fd)
            return -1
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Sends all of `bytes` (small requests: retried briefly on EAGAIN). False on failure.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        var tries = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                done += n
            } else if n < 0 && (errno == EAGAIN || errno == EINTR) && tries < 1000 {
                tries += 1
                usleep(100)
            } else {
                return false
            }
        }
        return true
    }

    /// Reads what is there into `buffer`: the count read, 0 at the peer's
    /// close, -1 on an error, nil when nothing is waiting.
    static func read(_ fd: Int32, into buffer: inout [UInt8]) -> Int? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return nil }
        if n > 0 { buffer.append(contentsOf: chunk[0..<n]) }
        return n
    }

    /// A GET request with a bearer token, or a session cookie when
    /// `token` is one (`fleetd_session=…`).
    static func get(_ path: String, token: String, accept: String = "application/json")
        -> [UInt8]
    {
        let credential =
            token.hasPrefix("fleetd_session=")
            ? "Cookie: \(token)" : "Authorization: Bearer \(token)"
        return Array(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(credential)\r\nAccept: \(accept)\r\n\r\n"
                .utf8)
    }

    /// Logs `user` in on `port` (`POST /api/v1/session`): its session
    /// cookie (`fleetd_session=…`), or nil when the login failed.
    static func login(port: Int, user: String, password: String) -> String? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let body = #"{"user":"\#(user)","password":"\#(password)"}"#
        let request =
            "POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        guard send(fd, Array(request.utf8)) else { return nil }
        var buffer: [UInt8] = []
        // The password's bcrypt takes a quarter of a second or so: up to 10 s.
        let deadline = Date().addingTimeInterval(10)
        while headEnd(buffer) == nil {
            switch read(fd, into: &buffer) {
            case nil where Date() < deadline: usleep(1000)
            case let n? where n > 0: continue
            default: return nil
            }
        }
        let (status, headers) = parseHead(buffer[..<headEnd(buffer)!])
        guard status == 200, let cookie = headers["set-cookie"] else { return nil }
        return String(cookie.prefix { $0 != ";" })
    }

    /// The end of the head (index after the blank line) in `buffer`, if complete.
    static func headEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 3..<buffer.count
        where buffer[i] == 10 && buffer[i - 1] == 13 && buffer[i - 2] == 10 && buffer[i - 3] == 13 {
            return i + 1
        }
        return nil
    }

    /// The status code and the headers (lower-cased names) of a head.
    static func parseHead(_ head: ArraySlice<UInt8>) -> (status: Int, headers: [String: String]) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n")
        let status =
            lines.isEmpty
            ? 0 : Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for l in lines {
            guard let c = l.firstIndex(of: ":") else { continue }
            headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers)
    }

    /// Percentile `p` (0–100) of sorted values.
    static func percentile(_ sorted: [Float], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let i = min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1)
        return Double(sorted[max(0, i)])
    }
}
