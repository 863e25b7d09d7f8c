import FleetConfig
import FleetStorage
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The optional alert log (`[alerts] log_file`): one JSON object per line per
/// committed alert, appended after the commit. `reopen()` (on SIGHUP) opens
/// the path anew, so logrotate can move the file away.
final class AlertLog: Sendable {
    let path: String
    private let fd = Mutex<Int32>(-1)

    init(path: String) throws {
        self.path = path
        try reopen()
    }

    /// Opens (creating, appending) the path; the old descriptor is closed.
    func reopen() throws {
        let new = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard new >= 0 else {
            throw StartupError(
                "cannot open the alert log \(path) (alerts.log_file): \(String(cString: strerror(errno)))"
            )
        }
        let old = fd.withLock { f in
            defer { f = new }
            return f
        }
        if old >= 0 { close(old) }
    }

    /// Appends the alerts, one line each, in one write.
    func append(_ alerts: [AlertRecord]) {
        guard !alerts.isEmpty else { return }
        let text = alerts.map(\.jsonLine).joined(separator: "\n") + "\n"
        fd.withLock { f in
            _ = text.utf8CString.withUnsafeBufferPointer { write(f, $0.baseAddress, $0.count - 1) }
        }
    }

    deinit { fd.withLock { if $0 >= 0 { close($0) } } }
}

/// Appends each commit's alerts, once they are stored.
extension AlertLog: CommitSink {
    func committed(_ c: Commit) { append(c.alerts) }
}
