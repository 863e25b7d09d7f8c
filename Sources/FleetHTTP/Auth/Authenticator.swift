import FleetAuth
import FleetConfig
import FleetModel
import FleetStorage
import Foundation
import Synchronization

/// Finds who a request comes from: an `Authorization: Bearer` token, else
/// the session cookie. Users and tokens are read from the store and kept
/// for `cacheS` seconds, so a removed user or a revoked token stops working
/// within that time; so does a session whose user's password or role
/// changed since its login (the session's `stamp`). Token use is noted and
/// written every minute.
final class Authenticator: Sendable {
    static let cookieName = "fleetd_session"
    let sessions: SessionTable
    let limiter: LoginLimiter
    let hashing: WorkGate
    private let backend: any APIBackend
    private let cacheS: TimeInterval = 30
    private let users = Mutex<[String: (user: UserFacts?, read: Date)]>([:])
    private let tokens = Mutex<[String: (token: TokenRecord?, read: Date)]>([:])
    private let used = Mutex<[String: Int64]>([:])

    init(backend: any APIBackend, settings: HTTPSettings) {
        self.backend = backend
        sessions = SessionTable(idleS: settings.sessionIdleS, maxS: settings.sessionMaxS)
        limiter = LoginLimiter(
            pairLimit: settings.loginFailures, userLimit: settings.loginFailuresPerUser,
            addressLimit: settings.loginFailuresPerAddress, windowS: settings.loginWindowS)
        hashing = WorkGate(
            concurrent: settings.loginConcurrency, waiting: 32 * settings.loginConcurrency)
    }

    /// The identity of a request with these credentials; nil for none.
    /// Throws `APIError` 401 for credentials that are wrong or expired.
    func identify(bearer: String?, cookie: String?) async throws -> Identity? {
        if let bearer {
            let hash = TokenSecret.hash(bearer)
            guard let token = try await token(hash: hash) else {
                throw APIError.unauthorized("the bearer token is not valid (revoked or mistyped)")
            }
            used.withLock { $0[token.name] = WallClock.system.nowMs() }
            // Tokens are never drivers (`fleetctl tokens add` refuses); one that is sees nothing.
            return Identity(
                kind: .token, name: token.name, role: token.role,
                scope: token.role == .driver ? .device("") : .all)
        }
        if let cookie {
            guard let (name, stamp) = sessions.session(of: cookie) else {
                throw APIError.unauthorized("the session has ended: log in again")
            }
            guard let facts = try await facts(of: name) else {
                sessions.close(cookie)
                throw APIError.unauthorized("user \(name) no longer exists")
            }
            guard facts.stamp == stamp else {
                sessions.close(cookie)
                throw APIError.unauthorized(
                    "the session has ended: the user's password or role changed; log in again")
            }
            return Identity(kind: .user, name: name, role: facts.role, scope: scope(facts))
        }
        return nil
    }

    /// A user's scope now: a driver found by their key sees the vehicle
    /// that read it last (none while no vehicle holds it).
    func scope(_ facts: UserFacts) -> DeviceScope {
        guard let key = facts.key else { return facts.scope }
        return .device(backend.vehicle(drivenBy: key) ?? "")
    }

    /// Whether credentials that were valid still are, read afresh from the
    /// store (not from the 30 s cache): a token not revoked, a session not
    /// ended whose user still exists with the password and role it logged
    /// in with. What an open event stream asks
    /// every few seconds, so that revoking a token or removing a user
    /// closes its streams too. A store that cannot be read answers true
    /// (a stream is not cut for a transient error).
    func stillValid(bearer: String?, cookie: String?) async -> Bool {
        do {
            if let bearer {
                return try await token(hash: TokenSecret.hash(bearer), fresh: true) != nil
            }
            if let cookie {
                guard let (name, stamp) = sessions.session(of: cookie) else { return false }
                guard try await facts(of: name, fresh: true)?.stamp == stamp else {
                    sessions.close(cookie)
                    return false
                }
                return true
            }
        } catch {
            return true
        }
        return false
    }

    /// The token whose secret hashes to `hash`: from the cache (`cacheS`)
    /// unless `fresh`, else from the store. Known tokens are cached; an
    /// unknown one is dropped from the cache (a revoked token) and never
    /// added (a flood of guesses must not fill memory).
    private func token(hash: String, fresh: Bool = false) async throws -> TokenRecord? {
        let now = Date()
        if !fresh, let hit = tokens.withLock({ $0[hash] }), now.timeIntervalSince(hit.read) < cacheS
        {
            return hit.token
        }
        let reader = backend.reader
        let token = try await Blocking.run { () throws(StoreError) in
            try reader.token(secretHash: hash)
        }
        tokens.withLock { t in
            if t.count > 10_000 { t.removeAll() }
            t[hash] = token.map { ($0, now) }
        }
        return token
    }

    /// What a session is checked against: the user's role and scope, and a
    /// stamp of the credentials (`stamp`) that changes with the password,
    /// the role, the groups or a driver's vehicle.
    struct UserFacts: Sendable {
        var role: Role
        var stamp: String
        var scope: DeviceScope
        /// A driver's iButton key (their vehicle is the one that read it).
        var key: String?

        init(_ record: UserRecord) {
            role = record.role
            stamp = Authenticator.stamp(record)
            scope = record.scope
            key = record.role == .driver ? record.key : nil
        }
    }

    /// The stamp of a user's credentials: a digest of the password hash,
    /// the role, the groups and a driver's vehicle, so that a session (and
    /// its event streams) ends when any changes (the hash never leaves the
    /// store's record).
    static func stamp(_ record: UserRecord) -> String {
        TokenSecret.hash(
            [
                record.passwordHash, record.role.rawValue, record.groups.joined(separator: ","),
                record.device ?? "", record.key ?? "",
            ].joined(separator: "\u{0}"))
    }

    /// A user's facts (nil: no such user): from the cache (`cacheS`) unless
    /// `fresh`, else from the store.
    private func facts(of user: String, fresh: Bool = false) async throws -> UserFacts? {
        let now = Date()
        if !fresh, let hit = users.withLock({ $0[user] }), now.timeIntervalSince(hit.read) < cacheS
        {
            return hit.user
        }
        let reader = backend.reader
        let record = try await Blocking.run { () throws(StoreError) in try reader.user(named: user)
        }
        let facts = record.map(UserFacts.init)
        users.withLock { u in
            if u.count > 10_000 { u.removeAll() }
            u[user] = (facts, now)
        }
        return facts
    }

    /// Checks a login. Returns the user's role and credentials' stamp (for
    /// the session), or nil when the name or the password is wrong (the
    /// same answer and about the same time for both). Throws 503 when too
    /// many checks already wait (`WorkGate`).
    func login(user: String, password: String) async throws -> UserFacts? {
        let reader = backend.reader
        let record = try await Blocking.run { () throws(StoreError) in try reader.user(named: user)
        }
        let checked = try await hashing.run {
            await Blocking.run { () -> Bool in
                // An unknown user costs the same bcrypt as a known one.
                let hash = record?.passwordHash ?? Self.decoyHash
                return PasswordHash.check(password, against: hash) && record != nil
            }
        }
        guard let ok = checked else {
            var e = APIError(
                .serviceUnavailable, "too many logins at once",
                "too many logins are being checked: try again in a second")
            e.headers[.retryAfter] = "1"
            throw e
        }
        guard ok, let record else { return nil }
        let facts = UserFacts(record)
        users.withLock { $0[user] = (facts, Date()) }
        return facts
    }

    /// A bcrypt hash no password matches, checked for unknown users.
    private static let decoyHash = PasswordHash.make(TokenSecret.make())

    /// Drops what is cached of `user`, so that a change made through the
    /// API (`/api/v1/users`) counts from the user's next request rather
    /// than within `cacheS`.
    func forget(user: String) {
        users.withLock { _ = $0.removeValue(forKey: user) }
    }

    /// Token use noted since the last call (name → Unix ms), emptied.
    func takeTokenUse() -> [String: Int64] {
        used.withLock { u in
            defer { u = [:] }; return u
        }
    }
}
