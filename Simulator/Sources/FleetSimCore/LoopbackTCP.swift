#if canImport(Glibc)
    import Glibc
#endif

/// Blocking TCP connections to this machine from a chosen loopback source
/// address (127.0.0.0/8 is all this machine's), as the abuse tests and
/// `fleetbench attack` make them: one "client" per source address.
public enum LoopbackTCP {
    /// A connection from `source` to 127.0.0.1:`port`, with a receive
    /// timeout of `receiveTimeoutS`; -1 when it cannot be made.
    public static func connect(from source: String, to port: Int, receiveTimeoutS: Int = 10)
        -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var tv = timeval(tv_sec: receiveTimeoutS, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var local = address(source, 0)
        var remote = address("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok =
            withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
            } == 0
            && withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
            } == 0
        if !ok {
            close(fd)
            return -1
        }
        return fd
    }

    /// `host:port` as a socket address (IPv4).
    static func address(_ host: String, _ port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr(host)
        return a
    }
}
