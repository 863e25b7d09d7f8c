import Foundation

/// What a `LoadGenerator` run offered and what fleetd acknowledged.
public struct LoadReport: Sendable {
    public var options: LoadOptions
    /// Seconds of offering.
    public var sendSeconds = 0.0
    /// From the start to the last acknowledgement, seconds.
    public var ackSeconds = 0.0
    /// Fixes sent once (resends not counted).
    public var fixesSent = 0
    /// Datagrams sent again after a timeout.
    public var resentDatagrams = 0
    /// Fixes acknowledged (each once), rejected by fleetd with a reason, never acknowledged.
    public var fixesAcked = 0
    public var fixesRejected = 0
    public var fixesUnacked = 0
    /// Replies for a datagram already acknowledged (the answer to a resend).
    public var duplicateReplies = 0
    /// Datagrams the kernel refused to send.
    public var sendErrors = 0
    /// Acknowledgement latencies from the first send, ms, sorted.
    public var latenciesMs: [Float] = []

    public init(options: LoadOptions) { self.options = options }

    /// The `p`-th percentile (0...100) of the acknowledgement latency, ms (nearest rank).
    public func latency(_ p: Double) -> Double {
        guard !latenciesMs.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(latenciesMs.count)).rounded(.up)) - 1
        return Double(latenciesMs[min(max(rank, 0), latenciesMs.count - 1)])
    }

    /// The offered rate was sustained: at least 99 % of the datagrams due
    /// were sent (a generator starved of CPU did not offer the rate), every
    /// fix acknowledged, none resent, and the last acknowledgement came
    /// within 5 % (+ 0.2 s) of the end of offering (a daemon that only caught
    /// up afterwards did not keep up).
    public var sustained: Bool {
        let due = options.rate * sendSeconds * Double(options.fixesPerDatagram)
        return options.proto != .nmea && Double(fixesSent) >= due * 0.99
            && fixesAcked == fixesSent && resentDatagrams == 0 && sendErrors == 0
            && ackSeconds <= sendSeconds * 1.05 + 0.2
    }

    /// The TSV header of `tsv`.
    public static let tsvHeader =
        "proto\tfixes/dgram\tdevices\toffered_dgram_s\tsent_fixes\tsent_fixes_s\tacked\tacked_s\tresent_dgrams\tunacked\trejected\tp50_ms\tp90_ms\tp99_ms\tmax_ms\tsustained"

    /// One TSV row.
    public var tsv: String {
        let o = options
        return String(
            format: "%@\t%d\t%d\t%.0f\t%d\t%.0f\t%d\t%.0f\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%@",
            o.proto.rawValue, o.fixesPerDatagram, o.devices, o.rate, fixesSent,
            Double(fixesSent) / max(sendSeconds, 1e-9), fixesAcked,
            Double(fixesAcked) / max(ackSeconds, sendSeconds, 1e-9), resentDatagrams,
            fixesUnacked, fixesRejected, latency(50), latency(90), latency(99),
            latenciesMs.last.map(Double.init) ?? .nan, sustained ? "yes" : "no")
    }
}
