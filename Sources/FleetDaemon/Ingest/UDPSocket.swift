import CBatchUDP
import FleetConfig

#if canImport(Glibc)
    import Glibc
#endif

/// One bound UDP socket: received from by its `UDPListener`, replied on by
/// the listener (at once) and by the engine (after the commit). Sending and
/// receiving on one socket from two threads is safe (`socket(7)`).
final class UDPSocket: Sendable {
    let fd: Int32
    /// The address actually bound (the port the kernel chose for port 0).
    let local: PeerAddress

    /// Binds `address` (numeric IP or a name `getaddrinfo(3)` resolves) and
    /// asks for a `receiveBuffer`-byte receive buffer. No `SO_REUSEADDR`:
    /// UDP has no TIME_WAIT to wait out, and with it a second fleetd (or a
    /// second socket bound to port 0) could share a port and silently take
    /// part of the traffic; without it that bind fails (EADDRINUSE).
    /// `granted` is what the kernel gave (Linux reports double the usable
    /// size; less than asked means capped by `net.core.rmem_max`).
    /// Throws `StartupError` naming the address and the system's reason.
    init(binding address: ListenAddress, receiveBuffer: Int) throws {
        let (fd, local) = try address.resolved(Int32(SOCK_DGRAM.rawValue)) { info in
            try Self.open(info, address: address, receiveBuffer: receiveBuffer)
        }
        self.fd = fd
        self.local = local
    }

    /// Takes over `fd`, a bound datagram socket passed by the service
    /// manager (socket activation), asking for a `receiveBuffer`-byte
    /// receive buffer as `init(binding:)` does.
    init(adopting fd: Int32, receiveBuffer: Int) {
        var size = Int32(clamping: receiveBuffer)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.local = Self.localAddress(fd)
    }

    /// The address `fd` is bound to (`getsockname(2)`).
    static func localAddress(_ fd: Int32) -> PeerAddress {
        var raw = sockaddr_in6()
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutableBytes(of: &raw) {
            getsockname(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &len)
        }
        return withUnsafeBytes(of: raw) { PeerAddress(raw: $0.baseAddress!, length: Int(len)) }
    }

    /// Opens and binds one socket for `info`; returns it and its local address.
    private static func open(
        _ info: UnsafePointer<addrinfo>, address: ListenAddress, receiveBuffer: Int
    ) throws -> (Int32, PeerAddress) {
        let fd = socket(
            info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartupError("cannot open a UDP socket: \(errno())") }
        var size = Int32(clamping: receiveBuffer)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let reason = errno()
            _ = Glibc.close(fd)
            throw StartupError("cannot bind \(address): \(reason)")
        }
        return (fd, localAddress(fd))
    }

    /// The receive buffer the kernel granted, bytes (as `getsockopt` reports it).
    var receiveBufferGranted: Int {
        var size: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &len)
        return Int(size)
    }

    /// Sends each reply of `batch` to its peer, in batches of `sendmmsg(2)`.
    /// A reply the kernel refuses (e.g. no route) is dropped: the device resends.
    func send(_ batch: ReplyBatch) {
        let count = batch.count
        var done = 0
        while done < count {
            let n = batch.bytes.withUnsafeBufferPointer { b in
                batch.offsets[done...].withUnsafeBufferPointer { o in
                    batch.lengths[done...].withUnsafeBufferPointer { l in
                        batch.addrs.withUnsafeBufferPointer { a in
                            batch.addrLengths[done...].withUnsafeBufferPointer { al in
                                cbu_send_to_batch(
                                    fd, b.baseAddress!, o.baseAddress!, l.baseAddress!,
                                    a.baseAddress! + done * Int(CBU_ADDR_SLOT), al.baseAddress!,
                                    Int32(o.count))
                            }
                        }
                    }
                }
            }
            if n > 0 {
                done += Int(n)
            } else if n < 0 && Glibc.errno == EINTR {
                continue
            } else {
                done += 1  // this one is refused (its peer unreachable, say): skip it
            }
        }
    }

    func close() { _ = Glibc.close(fd) }

    static func errno() -> String { String(cString: strerror(Glibc.errno)) }
}
