import FleetJSON
import FleetModel
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `/api/v1/notifications`: the rules that mail alerts (`MailRule`'s JSON).
///
/// - Admins see and manage every rule: the config's (`[[notifications]]`,
///   read-only here: 409) and those made here, addressed to anyone (a user
///   named in `to` must exist and have an `email`).
/// - Viewers and operators see and manage only the rules addressed to
///   themselves alone: every entry of `to` their name or their own email
///   (stored as their name). Such a rule mails only alerts of the vehicles
///   the user sees (`MailRule.audience`).
/// - Drivers (who see no alerts) and tokens other than admin ones have no
///   rules: 403.
///
/// Without `[smtp]` no rule can be made (409). Audited as
/// `notification.put` and `notification.delete`.
enum NotificationRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/notifications", role: .viewer) { r in
                let me = try await caller(d, r)
                let all = try await rules(d)
                return Replies.page(
                    all.filter { me.manages($0) }.map(RecordCoding.line), next: nil)
            },
            Route(.get, "/api/v1/notifications/{name}", role: .viewer) { r in
                let name = try WebhookRoutes.name(r)
                let me = try await caller(d, r)
                guard let rule = try await rules(d).first(where: { $0.name == name }),
                    me.manages(rule)
                else { throw APIError.notFound("no notification rule \(name)") }
                return Replies.record(rule)
            },
            Route(.put, "/api/v1/notifications/{name}", role: .viewer) { r in
                let name = try WebhookRoutes.name(r)
                let me = try await caller(d, r)
                guard d.settings.mailEnabled else {
                    throw APIError(
                        .conflict, "no mail server",
                        "fleetd sends no mail: [smtp] has no host in its config file")
                }
                let body = try await r.jsonBody(limit: 64 * 1024, timeoutS: d.settings.bodyTimeoutS)
                let all = try await rules(d)
                let existing = all.first { $0.name == name }
                if existing == nil {
                    let stored = all.filter { $0.origin == .api }
                    if stored.count >= d.settings.mailRulesMax {
                        throw APIError(
                            .conflict, "too many rules",
                            "\(stored.count) rules are stored: the most there may be (http.mail_rules_max); delete one first"
                        )
                    }
                    if me.user != nil,
                        stored.filter(me.manages).count >= d.settings.mailRulesPerUser
                    {
                        throw APIError(
                            .conflict, "too many rules",
                            "you have \(d.settings.mailRulesPerUser) rules: the most a user may have (http.mail_rules_per_user); delete one first"
                        )
                    }
                }
                if let existing {
                    if existing.origin == .config { throw fromConfig(name) }
                    guard me.manages(existing) else {
                        throw APIError(
                            .conflict, "name taken",
                            "notification rule \(name) exists and is not addressed to you alone: choose another name"
                        )
                    }
                }
                var (rule, problems) = MailRule.read(
                    name: name, try Replies.object(body, invalid: "invalid notification rule"))
                rule.origin = .api
                rule.createdBy = existing?.createdBy ?? r.caller.actor
                if problems.isEmpty {
                    let users = try await d.read { try $0.users() }
                    let byName = Dictionary(users.map { ($0.name, $0) }) { a, _ in a }
                    (rule.to, problems) = me.recipients(rule.to, users: byName)
                }
                guard problems.isEmpty else {
                    throw APIError(
                        .unprocessableContent, "invalid notification rule",
                        problems.joined(separator: "; "), problems: problems)
                }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "notification.put",
                    target: name, detail: "to " + rule.to.joined(separator: ", "))
                let stored = rule
                let added = try await d.backend.change { store throws(StoreError) in
                    try store.putMailRule(stored, audit: audit)
                }
                return Replies.json(RecordCoding.line(stored), status: added ? .created : .ok)
            },
            Route(.delete, "/api/v1/notifications/{name}", role: .viewer) { r in
                let name = try WebhookRoutes.name(r)
                let me = try await caller(d, r)
                guard let rule = try await rules(d).first(where: { $0.name == name }),
                    me.manages(rule)
                else { throw APIError.notFound("no notification rule \(name)") }
                if rule.origin == .config { throw fromConfig(name) }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "notification.delete",
                    target: name)
                let removed = try await d.backend.change { store throws(StoreError) in
                    try store.deleteMailRule(name, audit: audit)
                }
                guard removed else { throw APIError.notFound("no notification rule \(name)") }
                return Replies.json("{\"notification\":\(JSONValue.quote(name)),\"deleted\":true}")
            },
        ]
    }

    static func now() -> Int64 { WallClock.system.nowMs() }

    /// Every rule: the config's, then the stored ones (by name).
    static func rules(_ d: RouteDeps) async throws -> [MailRule] {
        let stored = try await d.read { try $0.mailRules() }
        let config = d.settings.mailRules
        return config + stored.filter { s in !config.contains { $0.name == s.name } }
    }

    /// Who manages rules: an admin (every rule), or one user (their own).
    struct Manager {
        /// nil: an admin.
        var user: UserRecord?

        /// Whether this caller sees and manages `rule`.
        func manages(_ rule: MailRule) -> Bool {
            guard let user else { return true }
            return !rule.to.isEmpty && rule.to.allSatisfy { mine($0, user) }
        }

        private func mine(_ entry: String, _ u: UserRecord) -> Bool {
            entry == u.name || (u.email.map { $0.lowercased() == entry.lowercased() } ?? false)
        }

        /// `to` as it is stored, or the problems: an admin's named users
        /// must exist and have an email; a user's entries must all be
        /// themselves (their own email is stored as their name).
        func recipients(_ to: [String], users: [String: UserRecord]) -> ([String], [String]) {
            var problems: [String] = []
            guard let user else {
                for name in to where !name.contains("@") {
                    if let u = users[name] {
                        if u.email == nil { problems.append("to: user \(name) has no email") }
                        if u.role == .driver {
                            problems.append("to: user \(name) is a driver, who sees no alerts")
                        }
                    } else {
                        problems.append("to: no user \(name)")
                    }
                }
                return (to, problems)
            }
            for entry in to where !mine(entry, user) {
                problems.append(
                    "to: \(entry.prefix(64)): a rule of yours may be addressed to you alone (\(user.name)\(user.email.map { " or " + $0 } ?? ""))"
                )
            }
            if user.email == nil {
                problems.append("to: you have no email: an admin sets it (fleetctl users email)")
            }
            return ([user.name], problems)
        }
    }

    /// The caller as a manager of rules: admins manage all; a user their
    /// own; drivers and non-admin tokens none (403).
    static func caller(_ d: RouteDeps, _ r: APIRequest) async throws -> Manager {
        if r.caller.role == .admin { return Manager(user: nil) }
        guard r.caller.kind == .user, r.caller.role != .driver else {
            throw APIError(
                .forbidden, "no notification rules",
                "only admins and users (viewers, operators) have notification rules")
        }
        let name = r.caller.name
        guard let u = try await d.read({ try $0.user(named: name) }) else {
            throw APIError.unauthorized("user \(name) no longer exists")
        }
        return Manager(user: u)
    }

    static func fromConfig(_ name: String) -> APIError {
        APIError(
            .conflict, "defined in the config file",
            "notification rule \(name) is defined in fleetd's config file: change it there and restart fleetd"
        )
    }
}
