import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A unix datagram socket standing in for systemd's notify socket: the
/// daemon's real libsystemd `sd_notify` calls arrive here. A thread reads
/// it all the time, as systemd does: a socket left unread fills (Linux
/// queues `net.unix.max_dgram_qlen` datagrams, 10 by default) and then the
/// daemon's `sd_notify` blocks.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let received = Mutex<(messages: [String], read: Int, closed: Bool)>(([], 0, false))

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw E2EError("socket(AF_UNIX) failed") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw E2EError("socket path too long")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else { throw E2EError("bind \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        inode = stat(path, &st) == 0 ? st.st_ino : 0
        let reader = Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            while !received.withLock({ $0.closed }) {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 100) > 0 else { continue }
                let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let m = String(decoding: buf[0..<n], as: UTF8.self)
                    received.withLock { $0.messages.append(m) }
                }
            }
            Glibc.close(fd)
        }
        reader.start()
    }

    /// The inode bound at `path`: a daemon restarted on the same folder
    /// binds a new socket there, which this one's deinit must not remove.
    private var inode: ino_t = 0

    deinit {
        var st = stat()
        if stat(path, &st) == 0, st.st_ino == inode { unlink(path) }
    }

    /// Stops reading (the socket is closed by the reader thread).
    func close() { received.withLock { $0.closed = true } }

    /// The next message not yet taken, or nil after `timeout` seconds.
    func receive(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let m = received.withLock { r -> String? in
                guard r.read < r.messages.count else { return nil }
                r.read += 1
                return r.messages[r.read - 1]
            }
            if let m { return m }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return nil
    }

    /// Waits for a message containing `needle`; returns it, or nil after `timeout` seconds.
    func waitFor(_ needle: String, timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let m = receive(timeout: deadline.timeIntervalSinceNow), m.contains(needle) {
                return m
            }
        }
        return nil
    }
}

struct E2EError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
