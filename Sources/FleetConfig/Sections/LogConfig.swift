/// `[log]`: how much the daemon says.
public struct LogConfig: Sendable, Equatable {
    /// trace, debug, info, notice, warning, error, critical.
    public var level = "info"
    /// Most rejected-datagram log lines per second (the rest are counted).
    public var rejectLogPerSecond = 5

    public init() {}

    static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    init(_ s: inout ConfigSection) throws(ConfigError) {
        level = try s.string("level", default: level)
        guard Self.levels.contains(level) else {
            throw s.error(
                "level", "must be one of \(Self.levels.joined(separator: ", ")), found \"\(level)\""
            )
        }
        rejectLogPerSecond = try s.int(
            "reject_log_per_second", default: rejectLogPerSecond, range: 0...100_000)
    }
}
