import Foundation
import Synchronization

/// Failed logins over a sliding window, counted three ways: per user name
/// from one address (`pairLimit`), per user name from anywhere
/// (`userLimit`, softer: five wrong passwords from one address do not lock
/// the user out for everyone) and per address across names
/// (`addressLimit`: one address trying many names). A key over its limit
/// is refused (429) until its oldest failure leaves the window.
///
/// An attempt is reserved before its password is checked (`reserve`):
/// counted as a failure at once, so parallel guesses see each other and at
/// most the limit of them are checked, whatever their number. A success
/// takes its reservation back and clears the pair's count. Bounded: at most
/// `maxKeys` keys are remembered.
final class LoginLimiter: Sendable {
    private let failures = Mutex<[String: [Date]]>([:])
    let pairLimit: Int
    let userLimit: Int
    let addressLimit: Int
    let windowS: TimeInterval
    let maxKeys = 100_000

    /// A reserved attempt: its time, and the keys it counts under.
    struct Reservation: Sendable {
        fileprivate let at: Date
        fileprivate let pair: String
        fileprivate let user: String
        fileprivate let address: String
    }

    init(pairLimit: Int, userLimit: Int, addressLimit: Int, windowS: Int) {
        self.pairLimit = pairLimit
        self.userLimit = userLimit
        self.addressLimit = addressLimit
        self.windowS = TimeInterval(windowS)
    }

    /// Reserves an attempt by `user` from `address`: `.success` to go on
    /// and check the password, `.failure` with the seconds until it may
    /// try again.
    func reserve(user: String, address: String, now: Date = Date()) -> Result<Reservation, Wait> {
        let r = Reservation(
            at: now, pair: "p:" + address + "\u{0}" + user, user: "u:" + user,
            address: "a:" + address)
        return failures.withLock { f in
            var longest: TimeInterval = 0
            for (key, limit) in [
                (r.pair, pairLimit), (r.user, userLimit), (r.address, addressLimit),
            ] {
                let recent = (f[key] ?? []).filter { now.timeIntervalSince($0) < windowS }
                f[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit, let oldest = recent.first {
                    longest = max(longest, windowS - now.timeIntervalSince(oldest))
                }
            }
            if longest > 0 { return .failure(Wait(seconds: max(1, Int(longest.rounded(.up))))) }
            if f.count >= maxKeys {
                f = f.filter { $0.value.contains { now.timeIntervalSince($0) < windowS } }
            }
            for key in [r.pair, r.user, r.address] { f[key, default: []].append(now) }
            return .success(r)
        }
    }

    /// The attempt was right: its reservation taken back, the pair's count cleared.
    func succeeded(_ r: Reservation) {
        release(r)
        _ = failures.withLock { $0.removeValue(forKey: r.pair) }
    }

    /// The attempt was not checked (the server was busy): its reservation taken back.
    func release(_ r: Reservation) {
        failures.withLock { f in
            for key in [r.pair, r.user, r.address] {
                if let i = f[key]?.lastIndex(of: r.at) { f[key]!.remove(at: i) }
                if f[key]?.isEmpty == true { f[key] = nil }
            }
        }
    }

    /// Seconds to wait before trying again.
    struct Wait: Error {
        let seconds: Int
    }
}
