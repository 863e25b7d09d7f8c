/// `[alerts]`: where committed alerts are also written.
public struct AlertsConfig: Sendable, Equatable {
    /// JSON Lines file every committed alert is appended to; "" = none.
    public var logFile = ""

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        logFile = try s.string("log_file", default: logFile)
    }
}
