import FleetAuth
import FleetJSON
import FleetModel
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `/api/v1/users` (admin): the people who log in, as `fleetctl users`
/// manages them. `PUT` adds a user or changes one (fields left out keep
/// their value); a change of password, role, groups, vehicle or key ends
/// the user's sessions and streams (the session's stamp), from their next
/// request (the credentials' cache is dropped), as does a removal. An admin cannot
/// remove themselves or take their own admin role (a fleet must keep one).
/// Password hashes are never returned. Audited as `user.put` and
/// `user.remove`.
enum UserRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/users", role: .admin) { _ in
                let users = try await d.read { try $0.users() }
                return Replies.page(users.map(RecordCoding.line), next: nil)
            },
            Route(.get, "/api/v1/users/{name}", role: .admin) { r in
                let name = try self.name(r)
                guard let u = try await d.read({ try $0.user(named: name) }) else {
                    throw APIError.notFound("no user \(name)")
                }
                return Replies.record(u)
            },
            Route(.put, "/api/v1/users/{name}", role: .admin) { r in
                let name = try self.name(r)
                let body = try await r.jsonBody(limit: 16 * 1024, timeoutS: d.settings.bodyTimeoutS)
                let old = try await d.read { try $0.user(named: name) }
                let asked = try change(body)
                var u =
                    old
                    ?? UserRecord(name: name, role: .viewer, passwordHash: "", createdMs: now())
                var problems = asked.problems
                if let role = asked.role { u.role = role }
                if let groups = asked.groups { u = with(u, groups: groups) }
                if let device = asked.device { u.device = device }
                if let email = asked.email { u.email = email }
                if let key = asked.key { u.key = key?.uppercased() }
                if old == nil {
                    if asked.role == nil { problems.append("role: is needed for a new user") }
                    if asked.password == nil {
                        problems.append("password: is needed for a new user")
                    }
                }
                if let p = asked.password, let why = PasswordHash.problem(p) {
                    problems.append("password: " + why)
                }
                if problems.isEmpty, let p = u.problem { problems.append(p) }
                if u.role == .driver, let v = u.device, old?.device != v,
                    try await d.read({ try $0.device(v) }) == nil
                {
                    problems.append("device: no device \(v)")
                }
                guard problems.isEmpty else {
                    throw APIError(
                        .unprocessableContent, "invalid user", problems.joined(separator: "; "),
                        problems: problems)
                }
                if r.caller.kind == .user, r.caller.name == name, u.role != .admin {
                    throw APIError(
                        .conflict, "your own role",
                        "an admin cannot take their own admin role: another admin may")
                }
                if let p = asked.password {
                    u.passwordHash = await Blocking.run { PasswordHash.make(p) }
                }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "user.put", target: name,
                    detail: u.summary + (asked.password == nil ? "" : "; password set"))
                let stored = u
                let setPassword = asked.password != nil
                let added = try await d.backend.change { store throws(StoreError) in
                    try store.putUser(stored, setPassword: setPassword, audit: audit)
                }
                d.auth.forget(user: name)
                let now = try await d.read { try $0.user(named: name) } ?? stored
                return Replies.json(RecordCoding.line(now), status: added ? .created : .ok)
            },
            Route(.delete, "/api/v1/users/{name}", role: .admin) { r in
                let name = try self.name(r)
                if r.caller.kind == .user, r.caller.name == name {
                    throw APIError(
                        .conflict, "yourself",
                        "an admin cannot remove themselves: another admin may")
                }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "user.remove", target: name)
                let removed = try await d.backend.change { store throws(StoreError) in
                    try store.removeUser(name, audit: audit)
                }
                guard removed else { throw APIError.notFound("no user \(name)") }
                d.auth.forget(user: name)
                return Replies.json("{\"user\":\(JSONValue.quote(name)),\"deleted\":true}")
            },
        ]
    }

    static func now() -> Int64 { WallClock.system.nowMs() }

    static func name(_ r: APIRequest) throws(APIError) -> String {
        let name = r.path["name"] ?? ""
        guard UserRecord.validName(name) else {
            throw APIError.badParameter("name", "not 1–64 characters of [A-Za-z0-9._@-]")
        }
        return name
    }

    static func with(_ u: UserRecord, groups: [String]) -> UserRecord {
        UserRecord(
            name: u.name, role: u.role, passwordHash: u.passwordHash, createdMs: u.createdMs,
            groups: groups, device: u.device, email: u.email, key: u.key)
    }

    /// What a `PUT` body asks: each field nil when left out; `device`,
    /// `email` and `key` `.some(nil)` for a JSON null (none).
    struct Change {
        var role: Role?
        var password: String?
        var groups: [String]?
        var device: String??
        var email: String??
        var key: String??
        var problems: [String] = []
    }

    /// Reads a `PUT` body: `role`, `password`, `groups`, `device`, `email`, `key`
    /// (`name`, `created` ignored, as a `GET` answers them). Every problem of form.
    static func change(_ body: [UInt8]) throws(APIError) -> Change {
        var c = Change()
        for (k, v) in try Replies.object(body, invalid: "invalid user") {
            func text() -> String? {
                guard case .string(let s) = v else {
                    c.problems.append("\(k): must be a string, found \(v.kindName)")
                    return nil
                }
                return s
            }
            func optionalText() -> String?? {
                if case .null = v { return .some(nil) }
                return text().map { .some($0) }
            }
            switch k {
            case "name", "created": continue
            case "role":
                guard let t = text() else { continue }
                guard let role = Role(rawValue: t) else {
                    c.problems.append(
                        "role: \"\(t.prefix(32))\" is not a role (admin, operator, viewer, driver)")
                    continue
                }
                c.role = role
            case "password": c.password = text()
            case "device": c.device = optionalText()
            case "email": c.email = optionalText()
            case "key": c.key = optionalText()
            case "groups": c.groups = v.strings(k, problems: &c.problems)
            default: c.problems.append("\(k.prefix(64)): not a field of a user")
            }
        }
        return c
    }
}
