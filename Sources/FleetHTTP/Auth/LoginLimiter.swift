import Foundation
import Synchronization

/// Failed logins, counted per user name and per address over a sliding
/// window: after `limit` failures within `windowS` either key is refused
/// (429) until the oldest failure leaves the window. A success clears the
/// user's count. Bounded: at most `maxKeys` keys are remembered.
final class LoginLimiter: Sendable {
    private let failures = Mutex<[String: [Date]]>([:])
    let limit: Int
    let windowS: TimeInterval
    let maxKeys = 100_000

    init(limit: Int, windowS: Int) {
        self.limit = limit
        self.windowS = TimeInterval(windowS)
    }

    /// Seconds until `user` from `address` may try again; nil: now.
    func wait(user: String, address: String, now: Date = Date()) -> Int? {
        failures.withLock { f in
            var longest: TimeInterval = 0
            for key in ["u:" + user, "a:" + address] {
                let recent = (f[key] ?? []).filter { now.timeIntervalSince($0) < windowS }
                f[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit, let oldest = recent.first {
                    longest = max(longest, windowS - now.timeIntervalSince(oldest))
                }
            }
            return longest > 0 ? Int(longest.rounded(.up)) : nil
        }
    }

    func failed(user: String, address: String, now: Date = Date()) {
        failures.withLock { f in
            if f.count >= maxKeys {
                f = f.filter { $0.value.contains { now.timeIntervalSince($0) < windowS } }
            }
            for key in ["u:" + user, "a:" + address] { f[key, default: []].append(now) }
        }
    }

    func succeeded(user: String) { _ = failures.withLock { $0.removeValue(forKey: "u:" + user) } }
}
