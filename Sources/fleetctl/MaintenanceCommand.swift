import ArgumentParser
import FleetConfig
import FleetModel
import FleetReports
import FleetStorage
import Foundation

/// `fleetctl maintenance`: where vehicles stand under the config's plans
/// (`[[maintenance]]`), and a service recorded as done.
struct MaintenanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "Maintenance plans: what is due, and a service recorded as done.",
        subcommands: [MaintenanceListCommand.self, MaintenanceDoneCommand.self],
        defaultSubcommand: MaintenanceListCommand.self)

    static func plans(_ database: DatabaseOptions) throws -> [MaintenancePlan] {
        let (config, path) = try ReportsCommand.config(database)
        guard !config.maintenance.isEmpty else {
            throw Output.fail("fleetctl: \(path) has no [[maintenance]] plans")
        }
        return config.maintenance
    }
}

struct MaintenanceListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Each vehicle under each plan: due or not, what is left.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "Only this vehicle.")
    var device: String?

    @Flag(name: .long, help: "Only what is due.")
    var due = false

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    func run() throws {
        let plans = try MaintenanceCommand.plans(database)
        let reader = try database.reader(waitForIt: false)
        let devices: [DeviceRecord]
        if let device {
            guard let d = try reader.device(device) else {
                throw Output.fail("fleetctl: no device \(device)")
            }
            devices = [d]
        } else {
            devices = try reader.devices()
        }
        let now = WallClock.system.nowMs()
        var all: [MaintenanceStatus] = []
        for d in devices where d.lastFix != nil || device != nil {
            all += try MaintenanceInputs.statuses(plans, device: d, reader: reader, nowMs: now)
        }
        if due { all = all.filter(\.due) }
        all.sort { ($0.due ? 0 : 1, $0.device, $0.plan) < ($1.due ? 0 : 1, $1.device, $1.plan) }
        if json {
            for s in all { print(RecordCoding.line(s)) }
            return
        }
        func left(_ s: MaintenanceStatus) -> String {
            var parts: [String] = []
            if let k = s.kmLeft { parts.append("\(Output.fixed(k, 0)) km") }
            if let h = s.engineHLeft { parts.append("\(Output.fixed(h, 1)) h") }
            if let d = s.daysLeft { parts.append("\(Output.fixed(d, 1)) days") }
            return parts.joined(separator: ", ")
        }
        let rows = all.map { s in
            [
                s.device, s.plan, s.due ? "DUE (\(s.dueBy.joined(separator: ", ")))" : "ok",
                left(s), RFC3339.format(millis: s.lastDoneMs), s.lastBy,
            ]
        }
        let header = ["VEHICLE", "PLAN", "STATUS", "LEFT", "SINCE (UTC)", "BY"]
        for line in Output.table(header, rows, minimum: [16, 10, 8, 20, 24, 10]) { print(line) }
        if rows.isEmpty { print(due ? "(nothing due)" : "(no vehicle under a plan)") }
    }
}

struct MaintenanceDoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done", abstract: "Record a service done: the plan counts from it.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The vehicle's device id.")
    var device: String

    @Argument(help: "The plan's name in [[maintenance]].")
    var plan: String

    @Option(name: .customLong("at"), help: "When it was done, RFC 3339 (default: now).")
    var at: String?

    @Option(help: "A note (at most 500 characters).")
    var note: String?

    func validate() throws {
        if let note, note.count > 500 { throw ValidationError("--note: at most 500 characters") }
    }

    func run() throws {
        let plans = try MaintenanceCommand.plans(database)
        guard let p = plans.first(where: { $0.name == plan }) else {
            throw Output.fail(
                "fleetctl: no plan \"\(plan)\" (plans: \(plans.map(\.name).joined(separator: ", ")))"
            )
        }
        let now = WallClock.system.nowMs()
        var atMs = now
        if let at {
            guard let ms = RFC3339.parse(Array(at.utf8)), ms <= now else {
                throw ValidationError(
                    "--at must be an RFC 3339 time not in the future, found \"\(at)\"")
            }
            atMs = ms
        }
        let reader = try database.reader(waitForIt: false)
        guard let d = try reader.device(device) else {
            throw Output.fail("fleetctl: no device \(device)")
        }
        guard p.applies(to: device, group: d.group) else {
            throw Output.fail("fleetctl: plan \(plan) does not apply to \(device)")
        }
        let record = MaintenanceRecord(
            plan: plan, device: device, doneMs: atMs,
            odometerM: try MaintenanceInputs.odometer(reader, device: d, at: atMs),
            by: AuditRecord.localActor, note: note)
        try database.administration().addMaintenance(
            record,
            audit: AuditRecord(
                timeMs: now, actor: AuditRecord.localActor, action: "maintenance.done",
                target: device, detail: plan))
        print(
            "\(device): \(plan) done at \(RFC3339.format(millis: atMs)), odometer \(Output.fixed(record.odometerM / 1000, 1)) km"
        )
    }
}
