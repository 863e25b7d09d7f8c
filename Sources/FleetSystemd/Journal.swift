import CSystemd
import Foundation

/// The systemd journal, through libsystemd's native protocol
/// (`sd_journal_sendv(3)`).
public enum Journal {
    /// Whether standard error is the journal: `JOURNAL_STREAM` (set by
    /// systemd for a service whose output goes to the journal) names the
    /// device and inode of the stream, and standard error is that stream
    /// (systemd.exec(5), "JOURNAL_STREAM"). A child with its standard error
    /// redirected elsewhere inherits the variable but not the stream, so
    /// both must match.
    public static func connected(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else {
            return false
        }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// Sends one entry: `fields` as `KEY=value` (keys upper case, `A-Z0-9_`,
    /// not starting with `_`; values may hold any bytes, new lines too).
    /// Returns false when the journal did not take it.
    @discardableResult
    public static func send(_ fields: [(String, String)]) -> Bool {
        // One buffer for every field; the iovecs point into it while it is pinned.
        var blob: [UInt8] = []
        var spans: [(offset: Int, count: Int)] = []
        for (key, value) in fields {
            let start = blob.count
            blob.append(contentsOf: key.utf8)
            blob.append(UInt8(ascii: "="))
            blob.append(contentsOf: value.utf8)
            spans.append((start, blob.count - start))
        }
        return blob.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            let iov = spans.map { iovec(iov_base: base + $0.offset, iov_len: $0.count) }
            return sd_journal_sendv(iov, Int32(iov.count)) >= 0
        }
    }

    /// syslog(3) priorities, as the journal's `PRIORITY` field takes them.
    public enum Priority: Int, Sendable {
        case emergency = 0, alert, critical, error, warning, notice, info, debug
    }
}
