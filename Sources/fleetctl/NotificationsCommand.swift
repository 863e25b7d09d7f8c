import ArgumentParser
import FleetModel
import FleetStorage

/// `fleetctl notifications`: the mail outbox of `[[notifications]]`, newest
/// first: what is waiting, what was sent, and what the server refused for
/// good (with its reply).
struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Mails of the notification rules, newest first, with how their delivery went.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only mails of this status: pending, sent or refused.")
    var status: String?

    @Option(help: "At most this many.")
    var limit = 100

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    @Flag(
        name: .long,
        help:
            "The rules instead of the mails: those made through the API, and the config's with --config."
    )
    var rules = false

    func validate() throws {
        if let status, MailRecord.Status(rawValue: status) == nil {
            throw ValidationError("--status must be pending, sent or refused, not \"\(status)\"")
        }
        guard (1...100_000).contains(limit) else {
            throw ValidationError("--limit must be 1 … 100000")
        }
    }

    func run() throws {
        if rules { return try listRules() }
        let statuses = status.flatMap(MailRecord.Status.init).map { [$0] } ?? []
        let mails = try database.reader(waitForIt: false).mails(statuses: statuses, limit: limit)
        if json {
            for m in mails { print(RecordCoding.line(m)) }
            return
        }
        let rows = mails.map { m in
            [
                String(m.id), m.rule, m.status.rawValue, String(m.alertIds.count),
                String(m.attempts), RFC3339.format(millis: m.doneMs ?? m.sendAfterMs),
                m.lastError ?? "-",
            ]
        }
        let header = ["ID", "RULE", "STATUS", "ALERTS", "TRIES", "SENT/DUE (UTC)", "LAST ERROR"]
        for line in Output.table(header, rows, minimum: [6, 12, 8, 6, 5, 24, 20]) {
            print(line)
        }
    }

    /// `--rules`: the config's rules (with `--config`), then the API's.
    private func listRules() throws {
        let config = try database.config.map { _ in try ReportsCommand.config(database).0 }
        let stored = try database.reader(waitForIt: false).mailRules()
        let own = config?.notifications ?? []
        let all = own + stored.filter { s in !own.contains { $0.name == s.name } }
        if json {
            for r in all { print(RecordCoding.line(r)) }
            return
        }
        let rows = all.map { r in
            [
                r.name, r.origin.rawValue, r.to.joined(separator: ", "),
                r.types.isEmpty ? "every type" : r.types.joined(separator: ", "),
                r.digestS == 0 ? "each alert" : "\(r.digestS) s",
                r.createdBy ?? "-",
            ]
        }
        let header = ["RULE", "ORIGIN", "TO", "TYPES", "MAILS", "MADE BY"]
        for line in Output.table(header, rows, minimum: [12, 6, 16, 12, 10, 10]) { print(line) }
    }
}
