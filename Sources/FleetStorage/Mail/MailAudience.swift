/// Puts a rule to work with the users as they are now: whom it reaches
/// (its addresses, and the `email` of each user it names) and which
/// vehicles it may mail about (`MailRule.audience`). Pure.
public enum MailAudience {
    /// `rule` with its `audience`: the vehicles every user it names sees. A
    /// user who no longer exists, or a driver (who sees no alerts), sees
    /// none; addresses do not narrow it.
    public static func resolve(_ rule: MailRule, users: [String: UserRecord]) -> MailRule {
        var out = rule
        var scope = DeviceScope.all
        for name in rule.users {
            guard let u = users[name], u.role != .driver else {
                scope = .none
                continue
            }
            scope = scope.intersection(u.scope)
        }
        out.audience = scope
        return out
    }

    /// The addresses `rule` mails: its own, and the `email` of each user it
    /// names who has one; each once, in the rule's order.
    public static func addresses(_ rule: MailRule, users: [String: UserRecord]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for t in rule.to {
            guard let a = t.contains("@") ? t : users[t]?.email else { continue }
            if seen.insert(a.lowercased()).inserted { out.append(a) }
        }
        return out
    }
}
