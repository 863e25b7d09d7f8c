import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A connected UDP socket over POSIX calls: sends to one peer and receives
/// only from it, with a timeout.
public final class UDPClient {
    private let fd: Int32

    /// Connects to `host:port` (an IPv4 or IPv6 literal, or a name resolved
    /// by getaddrinfo), sending from `source` (an IPv4 literal, such as one
    /// of 127.0.0.0/8; nil: the kernel's choice).
    public init(host: String, port: Int, receiveBuffer: Int = 4 << 20, source: String? = nil)
        throws(UDPClientError)
    {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &res) == 0, let ai = res else {
            throw UDPClientError("cannot resolve \(host):\(port)")
        }
        defer { freeaddrinfo(res) }
        fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, 0)
        guard fd >= 0 else { throw UDPClientError("socket: \(String(cString: strerror(errno)))") }
        var size = Int32(receiveBuffer)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &a.sin_addr) == 1 else {
                close(fd)
                throw UDPClientError("source \(source) is not an IPv4 address")
            }
            let bound = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let e = String(cString: strerror(errno))
                close(fd)
                throw UDPClientError("bind \(source): \(e)")
            }
        }
        guard connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            let e = String(cString: strerror(errno))
            close(fd)
            throw UDPClientError("connect \(host):\(port): \(e)")
        }
    }

    deinit { close(fd) }

    /// The socket, for batched calls (sendmmsg/recvmmsg) by the load generator.
    public var descriptor: Int32 { fd }

    /// Sends one datagram. Returns false when the kernel refused it (buffer
    /// full, or the peer's port was unreachable).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } == bytes.count
    }

    /// Waits up to `timeoutMs` for a datagram; nil on timeout.
    public func receive(timeoutMs: Int32) -> [UInt8]? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, timeoutMs) > 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else { return nil }
        return Array(buf[0..<n])
    }
}

/// A socket failure, with what was being done.
public struct UDPClientError: Error, CustomStringConvertible {
    public let description: String
    init(_ d: String) { description = d }
}
