import Foundation

/// When a failed delivery is tried again: exponential back-off with full
/// jitter, from `initialS` doubling up to `maximumS` (1 s to 10 min by
/// default), unless the receiver said when (`Retry-After` on 429 and 503,
/// RFC 9110 §10.2.3: seconds, or an HTTP date), which is taken within
/// the same ceiling. Pure: the random draw and the clock are the caller's.
public struct WebhookBackoff: Sendable, Equatable {
    public var initialS: Double = 1
    public var maximumS: Double = 600

    public init(initialS: Double = 1, maximumS: Double = 600) {
        self.initialS = initialS
        self.maximumS = maximumS
    }

    /// Seconds to wait before attempt `failures + 1`, after `failures`
    /// failed ones (1 or more); `unit` is a random draw in [0, 1): the wait
    /// is uniform over [ceiling / 2, ceiling] so that retries of many
    /// subscriptions spread out but never come sooner than half the step.
    public func delayS(failures: Int, unit: Double) -> Double {
        let exponent = Double(min(max(failures - 1, 0), 30))
        let ceiling = min(maximumS, initialS * pow(2, exponent))
        return ceiling / 2 + ceiling / 2 * min(max(unit, 0), 1)
    }

    /// The wait a `Retry-After` value asks for, in seconds, at Unix time
    /// `nowS`, capped at `maximumS`; nil when it is neither form.
    public func retryAfterS(_ value: String, nowS: Double) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(v), seconds >= 0 { return min(Double(seconds), maximumS) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = f.date(from: v) else { return nil }
        return min(max(date.timeIntervalSince1970 - nowS, 0), maximumS)
    }
}
