import FleetStorage
import FleetTracking
import Foundation

/// `[smtp]`: the mail server notifications go through. With no `host`
/// (the default) fleetd sends no mail and `[[notifications]]` must be empty.
public struct SMTPConfig: Sendable, Equatable {
    /// The server's name or address; "" : mail off.
    public var host = ""
    /// 587 (submission with STARTTLS) by default; 465 with `tls = "tls"`.
    public var port = 587
    /// The envelope sender and `From` of every mail.
    public var from = ""
    /// "" : no login.
    public var username = ""
    /// A file whose first line is the password (kept out of the config
    /// file, which may be readable by more people).
    public var passwordFile = ""
    /// `starttls` (required), `tls` (implicit, port 465) or `off` (a relay
    /// on this machine only: a password goes only to a loopback address then).
    public var tls = "starttls"
    /// How long any one reply of the server may take, seconds.
    public var timeoutS = 30.0
    /// PEM certificates to trust instead of the system's.
    public var caFile = ""
    /// The name given in `EHLO` (default: this machine's host name).
    public var heloName = ""
    /// The console's address as people reach it (`https://fleet.example.com`),
    /// for links in mails; "" : mails carry no link.
    public var consoleURL = ""
    /// Mails sent at once, at most.
    public var maxInFlight = 4

    public init() {}

    public var enabled: Bool { !host.isEmpty }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        host = try s.string("host", default: host)
        port = try s.int("port", default: port, range: 1...65535)
        from = try s.string("from", default: from)
        username = try s.string("username", default: username)
        passwordFile = try s.string("password_file", default: passwordFile)
        tls = try s.string("tls", default: tls)
        guard ["starttls", "tls", "off"].contains(tls) else {
            throw s.error("tls", "must be \"starttls\", \"tls\" or \"off\", found \"\(tls)\"")
        }
        timeoutS = try s.double("timeout_s", default: timeoutS, range: 1...600)
        caFile = try s.string("ca_file", default: caFile)
        heloName = try s.string("helo_name", default: heloName)
        if heloName.contains(where: { $0.isWhitespace || !$0.isASCII }) {
            throw s.error("helo_name", "must be a host name, found \"\(heloName)\"")
        }
        consoleURL = try s.string("console_url", default: consoleURL)
        if !consoleURL.isEmpty,
            !(consoleURL.hasPrefix("https://") || consoleURL.hasPrefix("http://"))
        {
            throw s.error("console_url", "must be an http:// or https:// address")
        }
        maxInFlight = try s.int("max_in_flight", default: maxInFlight, range: 1...64)
        if enabled {
            if let p = MailAddress.problem(from) {
                throw s.error("from", from.isEmpty ? "is needed when host is set" : p)
            }
            if tls == "off", !username.isEmpty,
                !(host == "localhost" || host.hasPrefix("127.") || host == "::1")
            {
                throw s.error(
                    "tls",
                    "\"off\" with a username would send the password in the clear to \(host): use \"starttls\" or \"tls\""
                )
            }
            if !username.isEmpty, passwordFile.isEmpty {
                throw s.error("password_file", "is needed with a username")
            }
        }
    }

    /// The password from `passwordFile` (its first line), or "" without a
    /// file. Throws `ConfigError` naming the file; never shows its content.
    public func password(file: String) throws(ConfigError) -> String {
        guard !passwordFile.isEmpty else { return "" }
        guard let data = FileManager.default.contents(atPath: passwordFile),
            let text = String(data: data, encoding: .utf8)
        else {
            throw ConfigError(
                file: file, line: nil, key: "smtp.password_file",
                message: "cannot read \(passwordFile)")
        }
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// One `[[notifications]]` table: a `MailRule`.
enum NotificationEntry {
    static func rule(_ s: inout ConfigSection) throws(ConfigError) -> MailRule {
        let name = try s.string("name", default: "")
        guard WebhookRules.validName(name) else {
            throw s.error(
                "name", "\"\(name)\" is not a rule name (1–64 characters of [A-Za-z0-9_-])")
        }
        let to = try s.strings("to")
        guard !to.isEmpty else {
            throw s.error(
                "to", "is needed: the addresses to mail, or users by name (rule \(name))")
        }
        guard to.count <= MailRule.maxRecipients else {
            throw s.error("to", "at most \(MailRule.maxRecipients) recipients (rule \(name))")
        }
        for a in to {
            if let p = MailRule.recipientProblem(a) { throw s.error("to", "\(p) (rule \(name))") }
        }
        let types = try s.strings("types")
        for t in types where AlertType(rawValue: t) == nil {
            throw s.error(
                "types",
                "\"\(t)\" is not an alert type (\(AlertType.allCases.map(\.rawValue).joined(separator: ", "))) (rule \(name))"
            )
        }
        let quietText = try s.string("quiet_hours", default: "")
        var quiet: QuietHours?
        if !quietText.isEmpty {
            guard let q = QuietHours(quietText) else {
                throw s.error(
                    "quiet_hours",
                    "\"\(quietText)\" is not a span of local time like \"22:00-06:00\" (rule \(name))"
                )
            }
            quiet = q
        }
        let zone = try s.string("time_zone", default: "UTC")
        guard TimeZone(identifier: zone) != nil else {
            throw s.error(
                "time_zone",
                "\"\(zone)\" is not an IANA time zone like \"Europe/Berlin\" (rule \(name))")
        }
        var rule = MailRule(
            name: name, to: to, types: types, devices: try s.strings("devices"),
            fences: try s.strings("fences"),
            digestS: try s.int("digest_s", default: 0, range: 0...86_400), quietHours: quiet,
            timeZone: zone)
        rule.groups = try GroupList.read(&s, what: "rule \(name)")
        return rule
    }
}

/// One `[[reports]]` table: a `ReportRule`.
enum ReportEntry {
    static func rule(_ s: inout ConfigSection) throws(ConfigError) -> ReportRule {
        let name = try s.string("name", default: "")
        guard WebhookRules.validName(name) else {
            throw s.error(
                "name", "\"\(name)\" is not a report name (1–64 characters of [A-Za-z0-9_-])")
        }
        let kindText = try s.string("kind", default: "usage")
        guard let kind = ReportRule.Kind(rawValue: kindText) else {
            throw s.error(
                "kind", "must be \"usage\" or \"stops\", found \"\(kindText)\" (report \(name))")
        }
        let everyText = try s.string("every", default: "day")
        guard let every = ReportSchedule.Every(rawValue: everyText) else {
            throw s.error(
                "every",
                "must be \"day\", \"week\" or \"month\", found \"\(everyText)\" (report \(name))")
        }
        let atText = try s.string("at", default: "06:00")
        guard let at = QuietHours.minutes(Substring(atText)) else {
            throw s.error("at", "\"\(atText)\" is not a local time like \"06:00\" (report \(name))")
        }
        let zone = try s.string("time_zone", default: "UTC")
        guard TimeZone(identifier: zone) != nil else {
            throw s.error(
                "time_zone",
                "\"\(zone)\" is not an IANA time zone like \"Europe/Berlin\" (report \(name))")
        }
        let to = try s.strings("to")
        guard !to.isEmpty else {
            throw s.error("to", "is needed: the addresses to mail (report \(name))")
        }
        guard to.count <= 50 else { throw s.error("to", "at most 50 addresses (report \(name))") }
        for a in to {
            if let p = MailAddress.problem(a) { throw s.error("to", "\(p) (report \(name))") }
        }
        var rule = ReportRule(
            name: name, kind: kind,
            schedule: ReportSchedule(every: every, atMinutes: at, timeZone: zone), to: to,
            devices: try s.strings("devices"),
            stopMinS: try s.double("stop_min_s", default: 300, range: 0...31_536_000))
        rule.groups = try GroupList.read(&s, what: "report \(name)")
        return rule
    }
}
