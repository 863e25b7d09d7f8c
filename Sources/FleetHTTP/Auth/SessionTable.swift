import FleetAuth
import Foundation
import Synchronization

/// Login sessions, in memory: a random 256-bit id (the cookie's value) →
/// the user and the stamp of the credentials it logged in with (see
/// `Authenticator.stamp`), ending `idleS` after last use and `maxS` after
/// it opened, whatever its use. A restart of fleetd ends every session
/// (users log in again); the table is bounded (the oldest go first).
final class SessionTable: Sendable {
    private struct Entry {
        var user: String
        var stamp: String
        var opened: Date
        var lastUsed: Date
    }
    private let entries = Mutex<[String: Entry]>([:])
    let idleS: TimeInterval
    let maxS: TimeInterval
    let maxSessions: Int

    init(idleS: Int, maxS: Int = 7 * 86_400, maxSessions: Int = 100_000) {
        self.idleS = TimeInterval(idleS)
        self.maxS = TimeInterval(maxS)
        self.maxSessions = maxSessions
    }

    /// A new session for `user`, logged in with credentials stamped
    /// `stamp`; returns its id.
    func open(user: String, stamp: String, now: Date = Date()) -> String {
        var g = SystemRandomNumberGenerator()
        let id = TokenSecret.base64URL((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
        entries.withLock { e in
            if e.count >= maxSessions {
                e = e.filter { now.timeIntervalSince($0.value.lastUsed) < idleS }
                if e.count >= maxSessions,
                    let oldest = e.min(by: { $0.value.lastUsed < $1.value.lastUsed })
                {
                    e[oldest.key] = nil
                }
            }
            e[id] = Entry(user: user, stamp: stamp, opened: now, lastUsed: now)
        }
        return id
    }

    /// The user of session `id` and the stamp it logged in with, when it
    /// is open (and marks it used): not idle `idleS`, not older than `maxS`.
    func session(of id: String, now: Date = Date()) -> (user: String, stamp: String)? {
        entries.withLock { e in
            guard var entry = e[id] else { return nil }
            guard now.timeIntervalSince(entry.lastUsed) < idleS,
                now.timeIntervalSince(entry.opened) < maxS
            else {
                e[id] = nil
                return nil
            }
            entry.lastUsed = now
            e[id] = entry
            return (entry.user, entry.stamp)
        }
    }

    /// Ends a session; returns its user (nil: no such session).
    @discardableResult
    func close(_ id: String) -> String? {
        entries.withLock { $0.removeValue(forKey: id)?.user }
    }
}
