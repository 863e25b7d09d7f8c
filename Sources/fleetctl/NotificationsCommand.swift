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

    func validate() throws {
        if let status, MailRecord.Status(rawValue: status) == nil {
            throw ValidationError("--status must be pending, sent or refused, not \"\(status)\"")
        }
        guard (1...100_000).contains(limit) else {
            throw ValidationError("--limit must be 1 … 100000")
        }
    }

    func run() throws {
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
}
