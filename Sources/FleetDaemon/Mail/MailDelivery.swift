import FleetHTTP
import FleetMail
import FleetModel
import FleetReports
import FleetStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Mails the alerts `[[notifications]]` and the rules stored through
/// `/api/v1/notifications` ask for, through `[smtp]`.
///
/// The rules are read again on every planning pass (the stored ones and
/// the users they name, `MailAudience`), so a rule made, changed or deleted
/// through the API, or a user's new email or groups, counts from the next
/// pass (within a second).
///
/// Two loops. The planner reads the alerts after the rules' cursors,
/// forms mails (`MailPlanner`) and stores them with the new cursors in one
/// writer job, each with its `Message-ID`, before any is sent. The sender
/// claims due mails (a lease of `leaseMs`), sends each, and stores the
/// outcome. The alerts are committed before the planner sees them, the
/// mails before the sender does: a SIGKILL anywhere loses nothing; one
/// between a server's 250 and the record costs a repeat of that mail, with
/// the same `Message-ID`, when the lease ends.
final class MailDelivery: Service, CommitSink, Sendable {
    private let stage: Mutex<CommitStage?> = Mutex(nil)
    private let reader: any StoreReading
    /// The config's rules; a stored rule never takes one's name.
    private let configRules: [MailRule]
    /// The rules in force (put to work) and the users, as last read.
    private let book = Mutex<(rules: [String: MailRule], users: [String: UserRecord])>(([:], [:]))
    private let reports: [String: ReportRule]
    private let consoleURL: String
    private let settings: SMTPSettings
    /// Mails sent at once, at most (`smtp.max_in_flight`).
    private let maxInFlight: Int
    private let composer: Mutex<AlertMail>
    private let logger: Logger
    private let planBell = Wakeup()
    private let sendBell = Wakeup()
    private let messageDomain: String
    /// The devices' groups, for rules limited to groups (read again by the
    /// planner while stale and needed).
    private let groups: DeviceGroups
    /// Alerts read per planning pass.
    static let readLimit = 10_000

    init(
        rules: [MailRule], reports: [ReportRule], settings: SMTPSettings, maxInFlight: Int,
        reader: any StoreReading,
        fenceNames: [String: String], consoleURL: String, logger: Logger,
        groups: DeviceGroups = DeviceGroups()
    ) {
        self.groups = groups
        self.configRules = rules
        self.reports = Dictionary(uniqueKeysWithValues: reports.map { ($0.name, $0) })
        self.consoleURL = consoleURL
        self.settings = settings
        self.maxInFlight = maxInFlight
        self.reader = reader
        self.logger = logger
        self.composer = Mutex(
            AlertMail(deviceNames: [:], fenceNames: fenceNames, consoleURL: consoleURL))
        let domain = settings.from.split(separator: "@").last.map(String.init) ?? "fleetd"
        self.messageDomain = domain
    }

    /// The commit stage whose writer runs the outbox's jobs.
    func attach(_ commit: CommitStage) { stage.withLock { $0 = commit } }

    /// How long a claimed mail is left to its sender before another
    /// attempt may take it: three replies' time, at least 10 s.
    var leaseMs: Int64 { max(10_000, Int64(settings.timeoutS * 3000)) }

    /// The wait before attempt `n + 1` after `n` transient failures:
    /// 5 s doubling, at most an hour.
    static func backoffMs(attempts n: Int) -> Int64 {
        min(3_600_000, 5000 << Int64(min(max(n - 1, 0), 20)))
    }

    func committed(_ commit: Commit) {
        if !commit.alerts.isEmpty { planBell.ring() }
    }

    private func perform<T: Sendable>(
        _ job: @escaping @Sendable (any Store) throws(StoreError) -> T
    ) async throws -> T {
        guard let s = stage.withLock({ $0 }) else {
            throw StoreError(
                path: "mail", action: "mail outbox",
                underlying: APIUnavailable("the commit stage is not running"))
        }
        return try await s.perform(job)
    }

    private func nowMs() -> Int64 { WallClock.system.nowMs() }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { g in
                g.addTask { await self.planLoop() }
                if !self.reports.isEmpty { g.addTask { await self.reportLoop() } }
                g.addTask { await self.sendLoop() }
            }
        }
    }

    private func planLoop() async {
        var failing = false
        var cursors: [String: Int64]? = nil
        while !Task.isCancelled {
            do {
                let more = try await planOnce(&cursors)
                if failing { logger.notice("mail: planning again") }
                failing = false
                if more {
                    // A backlog: on at once, but never in a tight loop
                    // beside the commits that share the writer.
                    try? await Task.sleep(for: Self.backlogPause)
                    continue
                }
            } catch {
                if !failing { logger.error("mail: \(error)") }
                failing = true
                cursors = nil
            }
            await planBell.wait(.seconds(1))
        }
    }

    /// The pause between two passes over a backlog of alerts.
    static let backlogPause = Duration.milliseconds(50)

    /// One pass: reads up to `readLimit` alerts after the lowest cursor
    /// (through the reader), then forms and stores the mails in ONE writer
    /// job (the rules' mails still gathering read, `MailPlanner`, the
    /// cursors moved). `cursors` is kept between passes (this planner is
    /// the only one moving them on a node); nil after a failure or when
    /// another node moved one first, so that they are read again. True
    /// when there may be more alerts to read at once.
    private func planOnce(_ cursors: inout [String: Int64]?) async throws -> Bool {
        let reader = self.reader
        let inForce = try await refreshRules()
        // Rules limited to groups, or naming users who are, match by the
        // vehicles' groups: read them whenever they are older than
        // `DeviceGroups.refreshS` (the API's edits arrive at once).
        let groups = self.groups
        if groups.stale, inForce.values.contains(where: \.needsGroups) {
            groups.load(
                try await Blocking.run { () throws(StoreError) in try reader.deviceGroups() })
        }
        let last = try await Blocking.run { () throws(StoreError) in try reader.lastAlertId() }
        let names = Array(inForce.keys)
        // A rule new since the cursors were read starts at the last alert.
        if cursors == nil || names.contains(where: { cursors?[$0] == nil }) {
            cursors = try await perform { store throws(StoreError) in
                try store.mailCursors(rules: names, startAt: last)
            }
        }
        // A deleted rule's cursor stays stored, but is not waited for.
        guard let known = cursors?.filter({ inForce[$0.key] != nil }),
            let from = known.values.min(), from < last
        else { return false }
        let alerts = try await Blocking.run { () throws(StoreError) in
            try reader.alerts(afterId: from, limit: Self.readLimit, filter: AlertFilter())
        }
        let readTo = alerts.count == Self.readLimit ? (alerts.last?.id ?? last) : last
        let now = nowMs()
        let domain = messageDomain
        let rules = Array(inForce.values)
        let plan = try await perform { store throws(StoreError) -> MailPlan? in
            let gathering = try store.gatheringMails(rules: names, nowMs: now)
            let plan = MailPlanner.plan(
                rules: rules, cursors: known, gathering: gathering, alerts: alerts,
                readTo: readTo, nowMs: now,
                newMessageId: { MailMessage.newMessageId(domain: domain) },
                groupOf: { groups.group(of: $0) })
            if plan.cursors.isEmpty { return plan }
            return try store.queueMails(plan) ? plan : nil
        }
        guard let plan else {
            cursors = nil  // another node moved a cursor first
            return true
        }
        for (rule, c) in plan.cursors { cursors?[rule] = c.to }
        if !plan.new.isEmpty || !plan.appended.isEmpty { sendBell.ring() }
        return alerts.count == Self.readLimit
    }

    /// Reads the stored rules and the users, and puts every rule to work
    /// (`MailAudience.resolve`); the config's rules come first by name.
    @discardableResult
    private func refreshRules() async throws -> [String: MailRule] {
        let reader = self.reader
        let (stored, users) = try await Blocking.run { () throws(StoreError) in
            (try reader.mailRules(), try reader.users())
        }
        let byName = Dictionary(users.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var rules: [String: MailRule] = [:]
        for r in stored { rules[r.name] = MailAudience.resolve(r, users: byName) }
        for r in configRules { rules[r.name] = MailAudience.resolve(r, users: byName) }
        let inForce = rules
        book.withLock { $0 = (inForce, byName) }
        return inForce
    }

    /// Queues each scheduled report's periods as their send time comes:
    /// a report's cursor is the start of its first period not yet queued
    /// (at first, the period now under way), so each period is queued
    /// once, also across restarts and downtime (every missed one then).
    private func reportLoop() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await queueReports()
                if failing { logger.notice("mail: scheduling reports again") }
                failing = false
            } catch {
                if !failing { logger.error("mail: scheduled reports: \(error)") }
                failing = true
            }
            try? await Task.sleep(for: .seconds(15))
        }
    }

    private func queueReports() async throws {
        let now = nowMs()
        for rule in reports.values.sorted(by: { $0.name < $1.name }) {
            let current = rule.schedule.period(containing: now)
            let name = rule.cursorName
            let cursors = try await perform { store throws(StoreError) in
                try store.mailCursors(rules: [name], startAt: current.from)
            }
            guard var from = cursors[name] else { continue }
            var plan = MailPlan()
            while plan.new.count < 100 {
                let p = rule.schedule.period(containing: from)
                guard rule.schedule.sendTime(periodEnd: p.to) <= now else { break }
                plan.new.append(
                    MailRecord(
                        id: 0, rule: name,
                        messageId: MailMessage.newMessageId(domain: messageDomain), alertIds: [],
                        createdMs: now, sendAfterMs: now, nextMs: now, report: rule.name,
                        periodFromMs: p.from, periodToMs: p.to))
                from = p.to
            }
            guard let first = cursors[name], from > first else { continue }
            plan.cursors[name] = (from: first, to: from)
            let queued = plan
            if try await perform({ store throws(StoreError) in try store.queueMails(queued) }) {
                logger.info(
                    "mail: report \(rule.name): \(queued.new.count) period\(queued.new.count == 1 ? "" : "s") queued"
                )
                sendBell.ring()
            }
        }
    }

    private func sendLoop() async {
        var failing = false
        while !Task.isCancelled {
            let now = nowMs()
            let lease = leaseMs
            let limit = maxInFlight
            let claimed: [MailRecord]
            do {
                claimed = try await perform { store throws(StoreError) in
                    try store.claimMails(nowMs: now, leaseMs: lease, limit: limit)
                }
            } catch {
                logger.error("mail: \(error)")
                await sendBell.wait(.seconds(1))
                continue
            }
            if claimed.isEmpty {
                await sendBell.wait(.seconds(1))
                continue
            }
            let outcomes = await withTaskGroup(of: (Int64, MailOutcome).self) { g in
                for m in claimed { g.addTask { (m.id, await self.attempt(m)) } }
                var out: [(Int64, MailOutcome)] = []
                for await o in g { out.append(o) }
                return out
            }
            for (id, outcome) in outcomes {
                let at = nowMs()
                do {
                    try await perform { store throws(StoreError) in
                        try store.recordMail(id, outcome, nowMs: at)
                    }
                } catch {
                    logger.error("mail \(id): \(error)")
                }
                switch outcome {
                case .sent:
                    if failing { logger.notice("mail: sending again") }
                    failing = false
                case .failed(let e, _):
                    if !failing { logger.warning("mail \(id): \(e); retrying") }
                    failing = true
                case .refused(let e):
                    logger.error("mail \(id) refused for good: \(e)")
                }
            }
        }
    }

    /// One attempt at mail `m`.
    private func attempt(_ m: MailRecord) async -> MailOutcome {
        if let report = m.report { return await attemptReport(m, report) }
        if book.withLock({ $0.rules[m.rule] }) == nil { _ = try? await refreshRules() }
        guard let (found, users) = book.withLock({ b in b.rules[m.rule].map { ($0, b.users) } })
        else {
            return .refused(error: "rule \(m.rule) no longer exists")
        }
        var rule = found
        rule.to = MailAudience.addresses(rule, users: users)
        guard !rule.to.isEmpty else {
            return .refused(error: "no recipient of rule \(m.rule) has an email")
        }
        let reader = self.reader
        let alerts: [AlertRecord]
        let names: [String: String]
        do {
            alerts = try await Blocking.run { () throws(StoreError) in
                var out: [AlertRecord] = []
                for id in m.alertIds {
                    if let a = try reader.alert(id: id) { out.append(a) }
                }
                return out
            }
            names = try await Blocking.run { () throws(StoreError) in try reader.deviceNames() }
        } catch {
            return .failed(
                error: "\(error)", retryAtMs: nowMs() + Self.backoffMs(attempts: m.attempts))
        }
        guard !alerts.isEmpty else {
            return .refused(error: "its alerts are no longer stored (retention)")
        }
        let message = composer.withLock { c in
            c.deviceNames = names
            return c.message(
                rule: rule, alerts: alerts, from: settings.from, messageId: m.messageId,
                dateMs: m.createdMs)
        }
        return await send(message, m)
    }

    /// One attempt at a scheduled report's mail: the report made now from
    /// what is stored for its period.
    private func attemptReport(_ m: MailRecord, _ name: String) async -> MailOutcome {
        guard let rule = reports[name], let from = m.periodFromMs, let to = m.periodToMs else {
            return .refused(error: "report \(name) is no longer in the config")
        }
        let reader = self.reader
        let now = nowMs()
        let made: ScheduledReport
        do {
            made = try await Blocking.run { () throws(StoreError) in
                try ScheduledReport.make(rule, reader, fromMs: from, toMs: to, nowMs: now)
            }
        } catch {
            return .failed(
                error: "\(error)", retryAtMs: nowMs() + Self.backoffMs(attempts: m.attempts))
        }
        let message = ReportMail.message(
            rule: rule, label: rule.schedule.label(from: from), csv: made.csv,
            summary: made.summary, from: settings.from, messageId: m.messageId,
            dateMs: m.createdMs, consoleURL: consoleURL)
        return await send(message, m)
    }

    private func send(_ message: MailMessage, _ m: MailRecord) async -> MailOutcome {
        do {
            let d = try await SMTPClient.send(message, with: settings)
            return .sent(
                refused: d.refused.isEmpty ? nil : "refused: " + d.refused.joined(separator: "; "))
        } catch {
            if error.permanent { return .refused(error: error.message) }
            return .failed(
                error: error.message, retryAtMs: nowMs() + Self.backoffMs(attempts: m.attempts))
        }
    }
}
