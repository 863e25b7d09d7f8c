/// Forms mails from new alerts: pure, values in and a `MailPlan` out.
///
/// Each rule looks at the alerts after its own cursor. A rule that does
/// not gather now (no digest, and no quiet hours under way) makes one mail
/// per matching alert, due at once; one that gathers adds the alert to its mail still
/// gathering (never tried, not yet due, fewer than `MailRecord.maxAlerts`)
/// or opens one due at `MailRule.sendAfter`. Every rule's cursor moves to
/// `readTo`, the last alert id read, matched or not. `groupOf` names a
/// device's group, for rules limited to groups.
public enum MailPlanner {
    public static func plan(
        rules: [MailRule], cursors: [String: Int64], gathering: [String: GatheringMail],
        alerts: [AlertRecord], readTo: Int64, nowMs: Int64, newMessageId: () -> String,
        groupOf: (String) -> String? = { _ in nil }
    ) -> MailPlan {
        var plan = MailPlan()
        for rule in rules {
            guard let cursor = cursors[rule.name], readTo > cursor else { continue }
            plan.cursors[rule.name] = (from: cursor, to: readTo)
            var open = gathering[rule.name]
            var openNew: Int?  // index in plan.new of this rule's new gathering mail
            // Gathering now: a digest, or quiet hours under way.
            let dueAt = rule.sendAfter(nowMs: nowMs)
            let gathers = dueAt > nowMs
            for a in alerts
            where a.id > cursor && a.id <= readTo
                && rule.matches(a, group: rule.needsGroups ? groupOf(a.device) : nil)
            {
                if !gathers {
                    plan.new.append(
                        MailRecord(
                            id: 0, rule: rule.name, messageId: newMessageId(), alertIds: [a.id],
                            createdMs: nowMs, sendAfterMs: nowMs, nextMs: nowMs))
                    continue
                }
                if let k = openNew, plan.new[k].alertIds.count < MailRecord.maxAlerts {
                    plan.new[k].alertIds.append(a.id)
                } else if let m = open,
                    m.count + (plan.appended[m.id]?.count ?? 0) < MailRecord.maxAlerts
                {
                    plan.appended[m.id, default: []].append(a.id)
                } else {
                    open = nil
                    plan.new.append(
                        MailRecord(
                            id: 0, rule: rule.name, messageId: newMessageId(), alertIds: [a.id],
                            createdMs: nowMs, sendAfterMs: dueAt, nextMs: nowMs))
                    openNew = plan.new.count - 1
                }
            }
        }
        return plan
    }
}
