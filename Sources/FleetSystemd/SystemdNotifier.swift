import CSystemd

/// Talks to the service manager through libsystemd's `sd_notify(3)`.
///
/// Outside systemd (`NOTIFY_SOCKET` unset) every call is a no-op, as
/// sd_notify documents. See https://www.freedesktop.org/software/systemd/man/sd_notify.html
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Sends `READY=1` plus a status line: start-up is complete.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    /// Sends `STATUS=…`: one line saying what the daemon is doing.
    public func status(_ text: String) { send("STATUS=\(text)") }

    /// Sends `STOPPING=1` plus a status line: shutdown has begun.
    public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }

    /// Sends `RELOADING=1` plus a status line.
    public func reloading(status: String) { send("RELOADING=1\nSTATUS=\(status)") }

    /// Sends `WATCHDOG=1`: the pipeline is alive.
    public func watchdog() { send("WATCHDOG=1") }

    /// The watchdog interval systemd asked for (`WatchdogSec=`), in
    /// microseconds, or nil when the watchdog is off.
    public func watchdogIntervalMicros() -> UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }

    /// Sends raw notify text; returns sd_notify's result (> 0 sent, 0 no
    /// socket, < 0 −errno).
    @discardableResult
    public func send(_ text: String) -> Int32 {
        // Newlines separate assignments; a status line must not contain one.
        sd_notify(0, text)
    }
}
