/// A live stream budget: `perS` items (positions, alerts) a second, saved
/// up for at most one second (a token bucket), so a round after a quiet
/// spell may send a second's worth at once and no more.
struct StreamBudget {
    let perS: Int
    private var tokens: Double
    private var lastMs: Int64?

    init(perS: Int) {
        self.perS = perS
        tokens = Double(perS)
    }

    /// What a round at `nowMs` may send.
    mutating func available(nowMs: Int64) -> Int {
        if let last = lastMs {
            tokens = min(Double(perS), tokens + Double(max(0, nowMs - last)) * Double(perS) / 1000)
        }
        lastMs = nowMs
        return Int(tokens)
    }

    /// `n` sent.
    mutating func spend(_ n: Int) { tokens = max(0, tokens - Double(n)) }
}
