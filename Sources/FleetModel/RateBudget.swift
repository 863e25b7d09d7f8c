/// A rate budget: `perS` items (a stream's positions or alerts, the
/// journal's alert entries) a second, saved up for at most one second (a
/// token bucket), so a round after a quiet spell may send a second's worth
/// at once and no more. Pure: time is passed in; a clock stepping back
/// adds nothing.
public struct RateBudget: Sendable {
    /// Items a second, at least 1.
    public let perS: Int
    private var tokens: Double
    private var lastMs: Int64?

    public init(perS: Int) {
        self.perS = max(1, perS)
        tokens = Double(self.perS)
    }

    /// What a round at `nowMs` (Unix ms) may send.
    public mutating func available(nowMs: Int64) -> Int {
        if let last = lastMs {
            tokens = min(Double(perS), tokens + Double(max(0, nowMs - last)) * Double(perS) / 1000)
        }
        lastMs = nowMs
        return Int(tokens)
    }

    /// `n` sent (more than `available` takes the budget to nothing, not below).
    public mutating func spend(_ n: Int) { tokens = max(0, tokens - Double(n)) }
}
