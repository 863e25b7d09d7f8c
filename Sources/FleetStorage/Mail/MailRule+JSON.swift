import FleetJSON
import FleetModel
import FleetTracking
import Foundation

/// A rule's JSON (`/api/v1/notifications`, `fleetctl notifications rules
/// --json`, and the stored form of the API's rules; fields are added,
/// never renamed): `name`, `to`, `types`, `devices`, `fences`, `groups`,
/// `digest_s`, `quiet_hours` (`HH:MM-HH:MM` or null), `time_zone`,
/// `origin` (`config` or `api`), `created_by` (null for the config's).
extension MailRule: Encodable {
    enum CodingKeys: String, CodingKey {
        case name, to, types, devices, fences, groups, origin
        case digestS = "digest_s", quietHours = "quiet_hours", timeZone = "time_zone"
        case createdBy = "created_by"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(to, forKey: .to)
        try c.encode(types, forKey: .types)
        try c.encode(devices, forKey: .devices)
        try c.encode(fences, forKey: .fences)
        try c.encode(groups, forKey: .groups)
        try c.encode(digestS, forKey: .digestS)
        try c.encode(quietHours?.description, forKey: .quietHours)
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(origin.rawValue, forKey: .origin)
        try c.encode(createdBy, forKey: .createdBy)
    }
}

extension MailRule {
    /// At most this many recipients, devices, fences.
    public static let maxRecipients = 50
    public static let maxListed = 1000

    /// Why `entry` of `to` cannot be a recipient, or nil: an address
    /// (`MailAddress`) when it has an `@`, else a user's name.
    public static func recipientProblem(_ entry: String) -> String? {
        if entry.contains("@") { return MailAddress.problem(entry) }
        if UserRecord.validName(entry) { return nil }
        return
            "\"\(entry.prefix(64))\" is neither an address (local@domain) nor a user's name"
    }

    /// Every problem of the rule, each `key: what` (empty: none): the name,
    /// 1–`maxRecipients` recipients, alert types that exist, groups,
    /// lists of at most `maxListed`, `digest_s` in 0…86 400, a time zone
    /// that exists.
    public var problems: [String] {
        var out: [String] = []
        if !WebhookRules.validName(name) {
            out.append(
                "name: \"\(name.prefix(64))\" is not a rule name (1–64 characters of [A-Za-z0-9_-])"
            )
        }
        if to.isEmpty { out.append("to: is needed: addresses, or users by name") }
        if to.count > Self.maxRecipients {
            out.append("to: at most \(Self.maxRecipients) recipients")
        }
        for t in to { if let p = Self.recipientProblem(t) { out.append("to: " + p) } }
        for t in types where AlertType(rawValue: t) == nil {
            out.append(
                "types: \"\(t.prefix(64))\" is not an alert type (\(AlertType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        for (key, list) in [("types", types), ("devices", devices), ("fences", fences)]
        where list.count > Self.maxListed || list.contains(where: { $0.utf8.count > 200 }) {
            out.append("\(key): at most \(Self.maxListed) entries of at most 200 bytes")
        }
        if groups.count > 100 { out.append("groups: at most 100 groups") }
        if let p = groups.lazy.compactMap(GroupName.problem).first { out.append("groups: " + p) }
        if !(0...86_400).contains(digestS) {
            out.append("digest_s: must be 0…86400 seconds, found \(digestS)")
        }
        if TimeZone(identifier: timeZone) == nil {
            out.append(
                "time_zone: \"\(timeZone.prefix(64))\" is not an IANA time zone like \"Europe/Berlin\""
            )
        }
        return out
    }

    /// Reads a rule named `name` from a JSON object's members (the API's
    /// body, or a stored rule): the fields of the encoding, every one but
    /// `to` optional; `name` (when given) must be `name`; `origin` and
    /// `created_by` are ignored (the caller sets them). Returns the rule and
    /// every problem of form and of content (empty: valid).
    public static func read(name: String, _ members: [(key: String, value: JSONValue)]) -> (
        MailRule, [String]
    ) {
        var rule = MailRule(name: name, to: [])
        var problems: [String] = []
        func strings(_ k: String, _ v: JSONValue) -> [String] { v.strings(k, problems: &problems) }
        func string(_ k: String, _ v: JSONValue) -> String? {
            guard case .string(let x) = v else {
                problems.append("\(k): must be a string, found \(v.kindName)")
                return nil
            }
            return x
        }
        for (k, v) in members {
            switch k {
            case "name":
                if let n = string(k, v), n != name {
                    problems.append(
                        "name: \"\(n.prefix(64))\" is not the rule's name in the path (\(name))")
                }
            case "origin", "created_by": continue
            case "to": rule.to = strings(k, v)
            case "types": rule.types = strings(k, v)
            case "devices": rule.devices = strings(k, v)
            case "fences": rule.fences = strings(k, v)
            case "groups": rule.groups = strings(k, v)
            case "digest_s":
                guard case .number(let x) = v, x == x.rounded(), abs(x) < 1e9 else {
                    problems.append("digest_s: must be an integer, found \(v.kindName)")
                    continue
                }
                rule.digestS = Int(x)
            case "quiet_hours":
                if case .null = v { continue }
                guard let text = string(k, v) else { continue }
                guard let q = QuietHours(text) else {
                    problems.append(
                        "quiet_hours: \"\(text.prefix(64))\" is not a span of local time like \"22:00-06:00\""
                    )
                    continue
                }
                rule.quietHours = q
            case "time_zone":
                if let z = string(k, v) { rule.timeZone = z }
            default:
                problems.append("\(k.prefix(64)): not a field of a rule")
            }
        }
        if !members.contains(where: { $0.key == "to" }) {
            problems.append("to: is needed: addresses, or users by name")
        }
        // Every problem once: of form, then of content not already said.
        for p in rule.problems
        where !problems.contains(where: { $0.hasPrefix(p.prefix { $0 != ":" } + ":") }) {
            problems.append(p)
        }
        return (rule, problems)
    }

    /// A stored rule from its JSON text; nil when it cannot be read.
    public static func stored(
        name: String, json: String, createdBy: String?
    ) -> MailRule? {
        guard case .object(let members)? = try? JSONReader.parseDocument(Array(json.utf8)) else {
            return nil
        }
        var (rule, problems) = read(name: name, members)
        guard problems.isEmpty else { return nil }
        rule.origin = .api
        rule.createdBy = createdBy
        return rule
    }
}
