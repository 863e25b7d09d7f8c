import FleetHTTP
import FleetMail
import FleetModel
import FleetReports
import FleetStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Mails the alerts `[[notifications]]` ask for, through `[smtp]`.
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
    private let rules: [String: MailRule]
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
    /// The devices' groups, for rules limited to groups.
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
        self.rules = Dictionary(uniqueKeysWithValues: rules.map { ($0.name, $0) })
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
                if !self.rules.isEmpty { g.addTask { await self.planLoop() } }
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
        let last = try await Blocking.run { () throws(StoreError) in try reader.lastAlertId() }
        let names = Array(rules.keys)
        if cursors == nil {
            cursors = try await perform { store throws(StoreError) in
                try store.mailCursors(rules: names, startAt: last)
            }
        }
        guard let known = cursors, let from = known.values.min(), from < last else { return false }
        let alerts = try await Blocking.run { () throws(StoreError) in
            try reader.alerts(afterId: from, limit: Self.readLimit, filter: AlertFilter())
        }
        let readTo = alerts.count == Self.readLimit ? (alerts.last?.id ?? last) : last
        let now = nowMs()
        let domain = messageDomain
        let rules = Array(self.rules.values)
        let groups = self.groups
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
        guard let rule = rules[m.rule] else {
            return .refused(error: "rule \(m.rule) is no longer in the config")
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
