#if canImport(Glibc)
    import Glibc
#endif

/// A UDP peer's socket address (IPv4 or IPv6), as `recvmmsg(2)` gave it:
/// where a reply goes, and how the sender is named in logs and in
/// `[nmea.devices]`.
struct PeerAddress: Sendable {
    /// The raw `sockaddr_in` or `sockaddr_in6` (the larger of the two).
    private(set) var storage = sockaddr_in6()
    private(set) var length: socklen_t = 0

    /// Copies `length` bytes of a socket address (at most a `sockaddr_in6`).
    init(raw: UnsafeRawPointer, length: Int) {
        let n = min(length, MemoryLayout<sockaddr_in6>.size)
        withUnsafeMutableBytes(of: &storage) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: n))
        }
        self.length = socklen_t(n)
    }

    /// Calls `body` with the address as a `sockaddr` and its length.
    func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    private var family: Int32 { Int32(storage.sin6_family) }

    /// The IP address in text (`inet_ntop(3)`), "?" for another family.
    var ip: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok: Bool = withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                var a = raw.load(as: sockaddr_in.self).sin_addr
                return inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil
            case AF_INET6:
                var a = storage.sin6_addr
                return inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil
            default:
                return false
            }
        }
        guard ok else { return "?" }
        let end = text.firstIndex(of: 0) ?? text.count
        return String(decoding: text[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address without its port as two words (IPv4 as IPv4-mapped
    /// IPv6), for counting per sender without making text.
    var host: Host {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET {
                let a = raw.load(as: sockaddr_in.self).sin_addr.s_addr
                return Host(high: 0, low: 0xffff_0000_0000 | UInt64(a))
            }
            let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
            return Host(
                high: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
                low: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        }
    }

    /// An address without its port (`host`).
    struct Host: Hashable {
        var high: UInt64
        var low: UInt64
    }

    /// The port, host order.
    var port: Int {
        // sin_port and sin6_port sit at the same offset, in network order.
        Int(UInt16(bigEndian: storage.sin6_port))
    }

    /// `ip:port`, `[ip]:port` for IPv6.
    var text: String {
        let ip = self.ip
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}

extension PeerAddress: CustomStringConvertible {
    var description: String { text }
}
