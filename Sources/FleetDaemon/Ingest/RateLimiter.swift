import Foundation
import Synchronization

/// Allows at most `perSecond` events in each wall-clock second and counts
/// the ones it holds back, so logs stay bounded under a flood.
final class RateLimiter: Sendable {
    private struct State {
        var second: Int64 = 0
        var used = 0
        var suppressed = 0
    }
    private let state = Mutex(State())
    let perSecond: Int

    init(perSecond: Int) { self.perSecond = perSecond }

    /// Whether to let this event through, and how many were held back since
    /// the last one that was.
    func admit() -> (Bool, suppressed: Int) {
        let s = Int64(Date().timeIntervalSince1970)
        return state.withLock { st in
            if st.second != s {
                st.second = s
                st.used = 0
            }
            guard st.used < perSecond else {
                st.suppressed += 1
                return (false, 0)
            }
            st.used += 1
            defer { st.suppressed = 0 }
            return (true, st.suppressed)
        }
    }
}
