import FleetConfig
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One fleetd per database: an exclusive `flock(2)` on a lock file beside
/// it (`DATABASE.lock`), held for the process's life and released by the
/// kernel when it ends, however it ends (no stale lock after a SIGKILL).
/// The file holds the holder's pid, so a second fleetd can name it.
final class InstanceLock {
    let path: String
    private let fd: Int32

    /// Takes the lock for `database`, creating its folder and the lock file
    /// as needed. Throws `StartupError` naming the pid that holds it, or
    /// why the file cannot be made.
    init(database: String) throws {
        path = database + ".lock"
        let dir = (database as NSString).deletingLastPathComponent
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            try Preflight.databaseFolder(database)
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StartupError(
                "cannot make the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let e = errno
            var buf = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buf, buf.count, 0)
            close(fd)
            let holder = String(decoding: buf[0..<max(n, 0)], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard e == EWOULDBLOCK else {
                throw StartupError("cannot lock \(path): \(String(cString: strerror(e)))")
            }
            throw StartupError(
                "database \(database) is in use by another fleetd (pid \(holder.isEmpty ? "unknown" : holder), lock \(path)): one fleetd per database"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    deinit { close(fd) }
}
