import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// The sockets the service manager passed at start (socket activation),
/// by their `FileDescriptorName=`, as `sd_listen_fds_with_names(3)` reports
/// them: see https://www.freedesktop.org/software/systemd/man/sd_listen_fds.html
///
/// Taking them unsets `LISTEN_FDS`, `LISTEN_PID` and `LISTEN_FDNAMES`, so
/// that no child process inherits the claim. Outside socket activation the
/// set is empty.
public struct InheritedSockets: Sendable {
    /// One passed socket: its name (`unknown` when the unit gave none) and descriptor.
    public struct Socket: Sendable, Equatable {
        public let name: String
        public let fd: Int32
        /// `SOCK_DGRAM`, `SOCK_STREAM`, … as the kernel reports it (`SO_TYPE`).
        public let type: Int32

        public var isDatagram: Bool { type == Int32(SOCK_DGRAM.rawValue) }
    }

    public let sockets: [Socket]

    public init(sockets: [Socket]) { self.sockets = sockets }

    /// Reads the passed sockets once (later calls find none: the
    /// environment is unset). Each descriptor is made close-on-exec.
    /// Throws `Failure` when libsystemd reports the environment invalid.
    public static func take() throws(Failure) -> InheritedSockets {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let n = sd_listen_fds_with_names(1, &names)
        guard n >= 0 else {
            throw Failure(
                "the passed sockets (LISTEN_FDS) are invalid: \(String(cString: strerror(-n)))")
        }
        defer {
            if let names {
                for i in 0..<Int(n) { free(names[i]) }
                free(names)
            }
        }
        var out: [Socket] = []
        for i in 0..<Int(n) {
            let fd = SD_LISTEN_FDS_START + Int32(i)
            let name = names?[i].map { String(cString: $0) } ?? "unknown"
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var type: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 { type = -1 }
            out.append(Socket(name: name, fd: fd, type: type))
        }
        return InheritedSockets(sockets: out)
    }

    /// Why the passed sockets could not be read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }
}
