import Foundation

/// A failure of the test support itself (a server that does not start, no
/// free port), with what went wrong in words.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A UDP port on 127.0.0.1 that was free a moment ago (bound to port 0 and
/// released): the kernel's pick, so parallel tests rarely collide.
public func freeUDPPort() throws -> Int { try freePort(SOCK_DGRAM, "UDP") }

/// A TCP port on 127.0.0.1 that was free a moment ago, as `freeUDPPort`
/// (a free UDP port says nothing of the same TCP port: a listener or a
/// connection of another test may hold it).
public func freeTCPPort() throws -> Int { try freePort(SOCK_STREAM, "TCP") }

private func freePort(_ type: __socket_type, _ name: String) throws -> Int {
    let s = socket(AF_INET, Int32(type.rawValue), 0)
    defer { close(s) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(s, $0, len) == 0 && getsockname(s, $0, &len) == 0
        }
    }
    guard ok else { throw TestSupportError("no free \(name) port") }
    return Int(UInt16(bigEndian: addr.sin_port))
}
