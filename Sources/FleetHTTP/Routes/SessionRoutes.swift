import FleetJSON
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /api/v1/session` (log in: `{"user","password"}` → session
/// cookie), `GET` (who am I), `DELETE` (log out).
enum SessionRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.post, "/api/v1/session", role: nil) { r in try await login(r, d) },
            Route(.get, "/api/v1/session", role: .driver) { r in
                Replies.json(who(r.caller.name, r.caller.kind, r.caller.role, r.caller.scope))
            },
            Route(.delete, "/api/v1/session", role: nil) { r in
                if let id = APIRouter.cookie(r.request), let user = d.auth.sessions.close(id) {
                    await audit(d, "user:\(user)", "session.logout", user, d.client(r))
                }
                var h = HTTPFields()
                h[.setCookie] = cookie("", r, d, maxAge: 0)
                return Replies.json(#"{"status":"logged out"}"#, headers: h)
            },
        ]
    }

    static func login(_ r: APIRequest, _ d: RouteDeps) async throws -> Response {
        let body = try await r.jsonBody(limit: 64 * 1024, timeoutS: d.settings.bodyTimeoutS)
        let doc: JSONValue
        do {
            doc = try JSONReader.parseDocument(body)
        } catch {
            throw APIError(.badRequest, "bad JSON", "\(error)")
        }
        var problems: [String] = []
        var user = "", password = ""
        switch doc["user"] {
        case .string(let s)?: user = s
        case nil: problems.append("user: missing")
        case let v?: problems.append("user: must be a string, found \(v.kindName)")
        }
        switch doc["password"] {
        case .string(let s)?: password = s
        case nil: problems.append("password: missing")
        case let v?: problems.append("password: must be a string, found \(v.kindName)")
        }
        if case .object(let members) = doc {
            for (k, _) in members where k != "user" && k != "password" {
                problems.append("\(k.prefix(40)): unknown field")
            }
        } else {
            problems = ["the body must be an object {\"user\",\"password\"}, found \(doc.kindName)"]
        }
        guard problems.isEmpty else {
            throw APIError(
                .unprocessableContent, "invalid login request", problems.joined(separator: "; "),
                problems: problems)
        }
        // Reserved (counted as a failure) before the password is checked:
        // parallel guesses see each other.
        let reservation: LoginLimiter.Reservation
        switch d.auth.limiter.reserve(user: user, address: d.client(r)) {
        case .success(let r): reservation = r
        case .failure(let wait):
            var e = APIError(
                .tooManyRequests, "too many failed logins",
                "too many failed logins for this user or from this address: try again in \(wait.seconds) s"
            )
            e.headers[.retryAfter] = String(wait.seconds)
            throw e
        }
        let checked: Authenticator.UserFacts?
        do {
            checked = try await d.auth.login(user: user, password: password)
        } catch {
            d.auth.limiter.release(reservation)  // not checked: not a failure
            throw error
        }
        let named = String(user.prefix(64))
        guard let facts = checked else {
            d.logger.notice("failed login for \(named.debugDescription) from \(d.client(r))")
            // Bounded like the attempts themselves: one entry per password
            // checked, never one for an attempt the limiter refused.
            await audit(d, "-", "session.login_failed", named, d.client(r))
            throw APIError(.unauthorized, "login failed", "wrong user name or password")
        }
        d.auth.limiter.succeeded(reservation)
        await audit(d, "user:\(user)", "session.login", user, d.client(r))
        let id = d.auth.sessions.open(user: user, stamp: facts.stamp)
        var h = HTTPFields()
        h[.setCookie] = cookie(id, r, d, maxAge: d.settings.sessionIdleS)
        return Replies.json(who(user, .user, facts.role, d.auth.scope(facts)), headers: h)
    }

    /// Who is logged in: `user`, `kind`, `role`, `groups` (the groups a
    /// user is limited to; empty: every vehicle) and `device` (a driver's
    /// vehicle, else null).
    static func who(_ name: String, _ kind: Identity.Kind, _ role: Role, _ scope: DeviceScope)
        -> String
    {
        var groups: [String] = []
        var device: String?
        switch scope {
        case .all: break
        case .groups(let g): groups = g
        case .device(let v): device = v
        }
        return
            "{\"user\":\(JSONValue.quote(name)),\"kind\":\"\(kind.rawValue)\",\"role\":\"\(role.rawValue)\""
            + ",\"groups\":[" + groups.map(JSONValue.quote).joined(separator: ",") + "]"
            + ",\"device\":" + (device.map(JSONValue.quote) ?? "null") + "}"
    }

    /// An audit entry for a login, a failed login or a logout: who, the
    /// user name as given (at most 64 characters; the log quotes it and
    /// fleetctl's tables escape it, so a newline in it cannot forge a line), and the
    /// peer address in `detail`. An entry that cannot be written (storage
    /// failing, fleetd stopping) is logged instead: the answer to the login
    /// does not depend on it.
    static func audit(
        _ d: RouteDeps, _ actor: String, _ action: String, _ user: String, _ peer: String
    ) async {
        let entry = AuditRecord(
            timeMs: DeviceRoutes.now(), actor: actor, action: action, target: user,
            detail: "from \(peer)")
        do {
            try await d.backend.change { store throws(StoreError) in try store.record(entry) }
        } catch {
            d.logger.warning(
                "audit entry \(action) for \(user.debugDescription) not written: \(error)")
        }
    }

    /// The session cookie: HttpOnly, SameSite=Strict, path `/`, `Secure`
    /// behind TLS (`http.secure_cookies`, or `X-Forwarded-Proto: https`).
    static func cookie(_ value: String, _ r: APIRequest, _ d: RouteDeps, maxAge: Int) -> String {
        let secure =
            d.settings.secureCookies
            || r.header(HTTPField.Name("X-Forwarded-Proto")!)?.lowercased() == "https"
        return
            "\(Authenticator.cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }
}
