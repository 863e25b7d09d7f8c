import Foundation

/// One notification rule (`[[notifications]]` in the config, or
/// `/api/v1/notifications`): which alerts are mailed to whom, one mail
/// each or gathered into digests, and when not to mail.
public struct MailRule: Sendable, Equatable {
    /// Where a rule comes from: the config file (read-only through the
    /// API) or the API (stored in the database).
    public enum Origin: String, Sendable, Equatable {
        case config, api
    }

    /// 1–64 characters of `[A-Za-z0-9_-]`; the outbox rows name it.
    public var name: String
    /// Recipients: mail addresses (`local@domain`, checked by
    /// `MailAddress`) and users by name (`UserRecord.validName`, no `@`),
    /// mailed at their `email` as it is when the mail is sent.
    public var to: [String]
    /// Alert types mailed; empty: every type.
    public var types: [String]
    /// Device ids whose alerts are mailed; empty: every device.
    public var devices: [String]
    /// Fence ids whose alerts are mailed; empty: any alert, with or without a fence.
    public var fences: [String]
    /// Groups whose vehicles' alerts are mailed; empty: every vehicle's.
    public var groups: [String] = []
    /// 0: one mail per alert; otherwise the alerts of `digestS` seconds
    /// from the first gathered into one mail (1…86 400).
    public var digestS: Int
    /// Local times during which nothing is sent: what falls in them is
    /// gathered and sent when they end. nil: none.
    public var quietHours: QuietHours?
    /// The IANA time zone of quiet hours and of the times in the mails.
    public var timeZone: String
    public var origin: Origin = .config
    /// Who stored it through the API (`Identity.actor`); nil for the config's.
    public var createdBy: String?
    /// The vehicles whose alerts may be mailed at all, whatever the rule
    /// asks: the vehicles every user the rule names can see (a user limited
    /// to groups is never mailed about another group's vehicle; a driver,
    /// who sees no alerts, about none). Set when the rule is put to work
    /// (`MailAudience`), never stored.
    public var audience: DeviceScope = .all

    public init(
        name: String, to: [String], types: [String] = [], devices: [String] = [],
        fences: [String] = [], digestS: Int = 0, quietHours: QuietHours? = nil,
        timeZone: String = "UTC"
    ) {
        self.name = name
        self.to = to
        self.types = types
        self.devices = devices
        self.fences = fences
        self.digestS = digestS
        self.quietHours = quietHours
        self.timeZone = timeZone
    }

    /// Whether `alert`, of a vehicle in `group` (nil: none), is mailed by this rule.
    public func matches(_ alert: AlertRecord, group: String? = nil) -> Bool {
        if !types.isEmpty, !types.contains(alert.type) { return false }
        if !devices.isEmpty, !devices.contains(alert.device) { return false }
        if !groups.isEmpty, !(group.map(groups.contains) ?? false) { return false }
        if !audience.admits(device: alert.device, group: group) { return false }
        if !fences.isEmpty {
            guard let f = alert.fence, fences.contains(f) else { return false }
        }
        return true
    }

    /// When a mail about an alert committed at `nowMs` may go: at once for
    /// a rule without digest outside quiet hours; otherwise after the
    /// digest period and past the end of quiet hours.
    public func sendAfter(nowMs: Int64) -> Int64 {
        var at = nowMs + Int64(digestS) * 1000
        if let q = quietHours, let tz = TimeZone(identifier: timeZone),
            let end = q.end(containing: at, in: tz)
        {
            at = end
        }
        return at
    }

    /// Whether this rule gathers alerts into one mail (a digest, or quiet hours).
    public var gathers: Bool { digestS > 0 || quietHours != nil }

    /// Whether matching needs the alert's vehicle's group.
    public var needsGroups: Bool { !groups.isEmpty || !audience.isAll }

    /// The users `to` names (entries without `@`).
    public var users: [String] { to.filter { !$0.contains("@") } }
}

/// A daily span of local time, `HH:MM-HH:MM`, that may wrap past midnight
/// (`22:00-06:00`). The start is inside, the end is not.
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after local midnight, 0…1439; `start != end`.
    public var start: Int
    public var end: Int

    /// Parses `HH:MM-HH:MM`; nil when malformed or empty.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let s = Self.minutes(parts[0]), let e = Self.minutes(parts[1]),
            s != e
        else { return nil }
        start = s
        end = e
    }

    /// `HH:MM` as minutes after midnight; nil when malformed.
    public static func minutes(_ t: Substring) -> Int? {
        let hm = t.trimmingCharacters(in: .whitespaces).split(
            separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, let h = Int(hm[0]),
            let m = Int(hm[1]), (0...23).contains(h), (0...59).contains(m)
        else { return nil }
        return h * 60 + m
    }

    public var description: String { Self.text(start) + "-" + Self.text(end) }

    /// Minutes after midnight as `HH:MM`.
    public static func text(_ m: Int) -> String {
        let h = m / 60, mm = m % 60
        return (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
    }

    /// When the quiet span holding instant `ms` ends (Unix ms), or nil when
    /// `ms` is not in one. Local times are `tz`'s, daylight saving included
    /// (a wall time skipped by a change is taken as the next that exists).
    public func end(containing ms: Int64, in tz: TimeZone) -> Int64? {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = tz
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        let c = cal.dateComponents([.hour, .minute], from: date)
        let minute = (c.hour ?? 0) * 60 + (c.minute ?? 0)
        let inside =
            start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
        guard inside else { return nil }
        let day = cal.startOfDay(for: date)
        // The end is today when it comes later in the day than now, else tomorrow.
        let endDay = minute < end ? day : (cal.date(byAdding: .day, value: 1, to: day) ?? day)
        let endDate =
            cal.date(bySettingHour: end / 60, minute: end % 60, second: 0, of: endDay)
            ?? endDay.addingTimeInterval(Double(end) * 60)
        return Int64((endDate.timeIntervalSince1970 * 1000).rounded())
    }
}
