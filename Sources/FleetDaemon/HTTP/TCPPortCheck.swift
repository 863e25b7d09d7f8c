import FleetConfig
import Glibc

/// Start-up check of a TCP address the HTTP servers will listen on: binds
/// it and lets go at once, so an address in use (another fleetd, another
/// server) stops start-up with an error naming it, before anything runs.
/// (Hummingbird binds its own sockets as its service starts.) A port
/// taken in the instant between this check and that bind still fails the
/// daemon, only later.
enum TCPPortCheck {
    static func ensureFree(_ address: ListenAddress, key: String) throws {
        guard address.port != 0 else { return }
        try address.resolved(Int32(SOCK_STREAM.rawValue)) { info in
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return }
            defer { _ = close(fd) }
            // As the server binds: SO_REUSEADDR, so a port in TIME_WAIT is free.
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                throw StartupError(
                    "cannot listen on \(address) (\(key)): \(String(cString: strerror(errno)))")
            }
        }
    }
}
