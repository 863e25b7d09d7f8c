import FleetJSON
import FleetModel
import FleetStorage
import FleetWebhooks
import Foundation
import HTTPTypes
import Hummingbird

/// `/api/v1/webhooks` (admin): the subscriptions with how their deliveries
/// stand, one, create or replace (`PUT`), delete. Secrets are never
/// returned but once: the one fleetd makes for a `PUT` that gives none.
/// Subscriptions the config file defines are read-only here (409): the
/// file is their source, and SIGHUP re-applies it.
enum WebhookRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/webhooks", role: .admin) { r in
                let all = try await d.read { try $0.webhookStatuses() }
                return Replies.page(all.map(RecordCoding.line), next: nil)
            },
            Route(.get, "/api/v1/webhooks/{name}", role: .admin) { r in
                let name = try self.name(r)
                guard let s = try await status(d, name) else {
                    throw APIError.notFound("no webhook \(name)")
                }
                return Replies.record(s)
            },
            Route(.put, "/api/v1/webhooks/{name}", role: .admin) { r in
                let name = try self.name(r)
                let body = try await r.jsonBody(
                    limit: 256 * 1024, timeoutS: d.settings.bodyTimeoutS)
                let old = try await d.read { try $0.webhookStatuses() }
                    .first { $0.subscription.name == name }?.subscription
                if old?.origin == .config { throw fromConfig(name) }
                let (parsed, since, formProblems) = try subscription(
                    name, body, allowPrivate: d.settings.webhooksAllowPrivate)
                var s = parsed
                var made: String?
                if s.secret.isEmpty {
                    if let old {
                        s.secret = old.secret
                    } else {
                        made = WebhookSecret.random().text
                        s.secret = made!
                    }
                }
                // Every problem at once: of form, then of the rules.
                let problems =
                    formProblems
                    + WebhookRules.problems(s).map(\.description).filter { p in
                        !formProblems.contains { $0.prefix { $0 != ":" } == p.prefix { $0 != ":" } }
                    }
                guard problems.isEmpty else {
                    throw APIError(
                        .unprocessableContent, "invalid webhook",
                        problems.joined(separator: "; "), problems: problems)
                }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "webhook.put", target: name,
                    detail: s.url)
                let stored = s
                let created = try await d.backend.changeWebhooks { store throws(StoreError) in
                    try store.putWebhook(stored, since: since, audit: audit)
                }
                // Deleted again at once by another request: as it was stored.
                let status = try await status(d, name) ?? WebhookStatus(subscription: stored)
                var line = RecordCoding.line(status)
                if let made {
                    line.removeLast()
                    line += ",\"secret\":" + JSONValue.quote(made) + "}"
                }
                return Replies.json(line, status: created ? .created : .ok)
            },
            Route(.delete, "/api/v1/webhooks/{name}", role: .admin) { r in
                let name = try self.name(r)
                if try await status(d, name)?.subscription.origin == .config {
                    throw fromConfig(name)
                }
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "webhook.delete", target: name)
                let removed = try await d.backend.changeWebhooks { store throws(StoreError) in
                    try store.deleteWebhook(name, audit: audit)
                }
                guard removed else { throw APIError.notFound("no webhook \(name)") }
                return Replies.json("{\"webhook\":\(JSONValue.quote(name)),\"deleted\":true}")
            },
        ]
    }

    static func name(_ r: APIRequest) throws(APIError) -> String {
        let name = r.path["name"] ?? ""
        guard WebhookRules.validName(name) else {
            throw APIError.badParameter("name", "not 1–64 characters of [A-Za-z0-9_-]")
        }
        return name
    }

    static func status(_ d: RouteDeps, _ name: String) async throws -> WebhookStatus? {
        try await d.read { try $0.webhookStatuses() }.first { $0.subscription.name == name }
    }

    static func fromConfig(_ name: String) -> APIError {
        APIError(
            .conflict, "defined in the config file",
            "webhook \(name) is defined in fleetd's config file: change it there and reload (SIGHUP)"
        )
    }

    static let fields = [
        "url", "secret", "types", "devices", "fences", "allow_private", "batch_max", "timeout_s",
        "max_age_h", "since",
    ]

    /// The body's subscription (secret "" when not given), `since`, and
    /// its problems of form (wrong types, unknown fields, no url, and
    /// `allow_private: true` unless `allowPrivate`, i.e.
    /// `http.webhooks_allow_private`); throws 400 for bad JSON, 422 for a
    /// body that is no object.
    static func subscription(_ name: String, _ body: [UInt8], allowPrivate: Bool) throws -> (
        WebhookSubscription, Int64?, [String]
    ) {
        let members = try Replies.object(body, invalid: "invalid webhook")
        var problems: [String] = []
        var s = WebhookSubscription(name: name, url: "", secret: "", origin: .api)
        var since: Int64?
        var sawURL = false
        func strings(_ k: String, _ v: JSONValue) -> [String] { v.strings(k, problems: &problems) }
        func number(_ k: String, _ v: JSONValue) -> Double? {
            guard case .number(let x) = v else {
                problems.append("\(k): must be a number, found \(v.kindName)")
                return nil
            }
            return x
        }
        func integer(_ k: String, _ v: JSONValue) -> Int64? {
            guard let x = number(k, v) else { return nil }
            guard x == x.rounded(), abs(x) < 9e15 else {
                problems.append("\(k): must be an integer, found \(x)")
                return nil
            }
            return Int64(x)
        }
        for (k, v) in members {
            switch k {
            case "url", "secret":
                guard case .string(let x) = v else {
                    problems.append("\(k): must be a string, found \(v.kindName)")
                    continue
                }
                if k == "url" {
                    s.url = x
                    sawURL = true
                } else if x.isEmpty {
                    problems.append("secret: empty (leave it out to have one made)")
                } else {
                    s.secret = x
                }
            case "types": s.types = strings(k, v)
            case "devices": s.devices = strings(k, v)
            case "fences": s.fences = strings(k, v)
            case "allow_private":
                guard case .bool(let b) = v else {
                    problems.append("\(k): must be true or false, found \(v.kindName)")
                    continue
                }
                if b && !allowPrivate {
                    problems.append(
                        "\(k): true is refused through the API (http.webhooks_allow_private = false):"
                            + " set it in the config's [[webhooks]] entry, or allow it there")
                    continue
                }
                s.allowPrivate = b
            case "batch_max":
                if let x = integer(k, v) { s.batchMax = Int(clamping: x) }
            case "timeout_s":
                if let x = number(k, v) { s.timeoutS = x }
            case "max_age_h":
                if let x = number(k, v) { s.maxAgeH = x }
            case "since":
                if let x = integer(k, v) {
                    if x < 0 {
                        problems.append("since: must be an alert id (0 or more), found \(x)")
                    }
                    since = x
                }
            default:
                problems.append(
                    "\(k.prefix(40)): unknown field (known: \(fields.joined(separator: ", ")))")
            }
        }
        if !sawURL { problems.append("url: required") }
        return (s, since, problems)
    }

    static func now() -> Int64 { WallClock.system.nowMs() }
}
