import ArgumentParser
import FleetConfig
import FleetMail
import FleetModel
import FleetReports
import FleetStorage
import Foundation

/// `fleetctl reports`: the config's scheduled reports (`[[reports]]`), and
/// one sent now.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Scheduled reports: list them, or mail one now.",
        subcommands: [ReportsListCommand.self, ReportsRunCommand.self],
        defaultSubcommand: ReportsListCommand.self)

    /// The config the database comes from, loaded; fails when there is none.
    static func config(_ database: DatabaseOptions) throws -> (DaemonConfig, String) {
        guard let path = database.config else {
            throw Output.fail(
                "fleetctl: scheduled reports are in fleetd's config: give --config FILE")
        }
        do {
            return (try DaemonConfig.load(path: path), path)
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
    }
}

struct ReportsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Each scheduled report: what, when, to whom, the last period mailed.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let (config, _) = try ReportsCommand.config(database)
        let mails = try database.reader(waitForIt: false).mails(statuses: [], limit: 10_000)
        let now = WallClock.system.nowMs()
        let rows = config.reports.map { r in
            let next = r.schedule.sendTime(periodEnd: r.schedule.period(containing: now).to)
            let last = mails.first { $0.report == r.name }
            return [
                r.name, r.kind.rawValue,
                "\(r.schedule.every.rawValue) at \(QuietHours.text(r.schedule.atMinutes)) \(r.schedule.timeZone)",
                RFC3339.format(millis: next), r.to.joined(separator: ", "),
                last.map { m in
                    "\(m.periodFromMs.map { r.schedule.label(from: $0) } ?? "?") \(m.status.rawValue)"
                } ?? "-",
            ]
        }
        let header = ["REPORT", "KIND", "EVERY", "NEXT (UTC)", "TO", "LAST PERIOD"]
        for line in Output.table(header, rows, minimum: [12, 6, 24, 24, 16, 16]) { print(line) }
        if rows.isEmpty { print("(no [[reports]] in the config)") }
    }
}

struct ReportsRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract:
            "Make a scheduled report and mail it now (the last complete period, or the one holding --for)."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The report's name in [[reports]].")
    var name: String

    @Option(
        name: .customLong("for"),
        help: "A time in the period to report on, RFC 3339 (2026-11-26T12:00:00Z).")
    var forTime: String?

    func run() throws {
        let (config, path) = try ReportsCommand.config(database)
        guard let rule = config.reports.first(where: { $0.name == name }) else {
            throw Output.fail(
                "fleetctl: no report \"\(name)\" in \(path) (there: \(config.reports.map(\.name).joined(separator: ", ")))"
            )
        }
        let now = WallClock.system.nowMs()
        let period: (from: Int64, to: Int64)
        if let forTime {
            guard let ms = RFC3339.parse(Array(forTime.utf8)) else {
                throw ValidationError("--for must be an RFC 3339 time, found \"\(forTime)\"")
            }
            period = rule.schedule.period(containing: ms)
        } else {
            period = rule.schedule.previousPeriod(before: now)
        }
        let settings: SMTPSettings
        do {
            settings = try SMTPSettings(config.smtp, file: path)
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        let reader = try database.reader(waitForIt: false)
        let made = try ScheduledReport.make(
            rule, reader, fromMs: period.from, toMs: period.to, nowMs: now)
        let label = rule.schedule.label(from: period.from)
        let domain = settings.from.split(separator: "@").last.map(String.init) ?? "fleetd"
        let message = ReportMail.message(
            rule: rule, label: label, csv: made.csv, summary: made.summary, from: settings.from,
            messageId: MailMessage.newMessageId(domain: domain), dateMs: now,
            consoleURL: config.smtp.consoleURL)
        let outcome = Blocking.wait { () async throws(SMTPError) -> SMTPClient.Delivery in
            try await SMTPClient.send(message, with: settings)
        }
        switch outcome {
        case .success(let d):
            print(
                "report \(name) for \(label) sent to \(rule.to.joined(separator: ", ")): \(d.reply)"
            )
            if !d.refused.isEmpty { print("refused: \(d.refused.joined(separator: "; "))") }
        case .failure(let e):
            throw Output.fail("fleetctl: report \(name) not sent: \(e)")
        }
    }
}
