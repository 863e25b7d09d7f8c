/// `[engine]`: the bounds of the queue between the listeners and the
/// tracking stage, and of each group commit.
public struct EngineConfig: Sendable, Equatable {
    /// Most fixes waiting for the writer; beyond it datagrams are shed (reason `overload`).
    public var queueMaxFixes = 150_000
    /// Most time the oldest waiting datagram may have waited, ms; while it is
    /// older, arriving datagrams are shed (reason `overload`). Keeps the
    /// acknowledgement delay under devices' resend timeouts when the writer
    /// falls behind: 20 s, well inside a Teltonika unit's default response
    /// timeout of 30 s (parameter 1001) and equal to `tcp.commit_timeout_s`,
    /// so an alert storm (a fleet's first fixes inside ~20 fences each) is
    /// worked off instead of shed from senders that do not resend.
    public var queueMaxDelayMs = 20_000
    /// Most fixes in one transaction (group commit).
    public var batchMaxFixes = 4096
    /// Longest a fix waits for its batch to fill before commit, ms.
    public var batchMaxDelayMs = 2

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        queueMaxFixes = try s.int("queue_max_fixes", default: queueMaxFixes, range: 1...10_000_000)
        queueMaxDelayMs = try s.int(
            "queue_max_delay_ms", default: queueMaxDelayMs, range: 10...600_000)
        batchMaxFixes = try s.int("batch_max_fixes", default: batchMaxFixes, range: 1...1_000_000)
        batchMaxDelayMs = try s.int("batch_max_delay_ms", default: batchMaxDelayMs, range: 0...50)
    }
}
