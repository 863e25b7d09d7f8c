import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One device's TCP connection, as a tracker keeps one: connected on
/// demand (blocking, bounded), written whole, read without blocking.
/// Not thread-safe.
public final class StreamClient {
    public let host: String
    public let port: Int
    private var fd: Int32 = -1
    /// Bytes received and not yet taken by `take`.
    public private(set) var received: [UInt8] = []

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    deinit { disconnect() }

    public var isConnected: Bool { fd >= 0 }

    /// Connects (within `timeoutMs`) unless connected; throws when it cannot.
    public func connect(timeoutMs: Int32 = 5000) throws(UDPClientError) {
        guard fd < 0 else { return }
        received = []
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw UDPClientError("cannot resolve \(host):\(port)")
        }
        defer { freeaddrinfo(list) }
        let s = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw UDPClientError("socket: \(String(cString: strerror(errno)))") }
        _ = fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK)
        if Glibc.connect(s, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0,
            errno != EINPROGRESS
        {
            Glibc.close(s)
            throw UDPClientError("connect \(host):\(port): \(String(cString: strerror(errno)))")
        }
        var p = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        guard Glibc.poll(&p, 1, timeoutMs) == 1,
            getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == 0,
            err == 0
        else {
            Glibc.close(s)
            throw UDPClientError(
                "connect \(host):\(port): \(err == 0 ? "timed out" : String(cString: strerror(err)))"
            )
        }
        fd = s
    }

    /// Writes all of `bytes` (waiting for room, bounded); false when the
    /// connection is gone (then closed).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard fd >= 0 else { return false }
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                off += n
            } else if n < 0, errno == EAGAIN {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard Glibc.poll(&p, 1, 5000) == 1 else { disconnect(); return false }
            } else {
                disconnect()
                return false
            }
        }
        return true
    }

    /// Reads what has arrived, without waiting; false when the server closed
    /// the connection (what it sent before is kept in `received`).
    @discardableResult
    public func poll() -> Bool {
        guard fd >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 {
                received += chunk.prefix(n)
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return true
            } else {
                disconnect()
                return false
            }
        }
    }

    /// Removes the first `n` received bytes.
    public func take(_ n: Int) { received.removeFirst(min(n, received.count)) }

    public func disconnect() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
