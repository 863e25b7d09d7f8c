import ArgumentParser
import FleetModel
import FleetProtocols
import FleetStorage

/// `fleetctl commands [list|send]`: commands to devices over their TCP
/// connections (fleetd sends a queued command when the device is
/// connected, within 2 s).
struct CommandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commands",
        abstract: "Send commands to devices (over their TCP connection) and list them.",
        subcommands: [CommandsListCommand.self, CommandsSendCommand.self],
        defaultSubcommand: CommandsListCommand.self)
}

struct CommandsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Commands, newest first, with their status and answer.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "Only this device's.")
    var device: String?

    @Option(help: "At most this many.")
    var limit = 100

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    func run() throws {
        let commands = try database.reader(waitForIt: false).commands(
            device: device, statuses: [], limit: limit)
        if json {
            for c in commands { print(RecordCoding.line(c)) }
            return
        }
        let rows = commands.map { c in
            [
                String(c.id), c.device, c.text, c.status.rawValue,
                RFC3339.format(millis: c.queuedMs), c.actor, c.response ?? "-",
            ]
        }
        let header = ["ID", "DEVICE", "COMMAND", "STATUS", "QUEUED (UTC)", "BY", "ANSWER"]
        for line in Output.table(header, rows, minimum: [6, 16, 16, 9, 24, 14, 20]) {
            print(line)
        }
    }
}

struct CommandsSendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract:
            "Queue a command (the device's own text: getinfo, Relay,1#, S20,1,1); fleetd sends it once the device is connected."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The device id.")
    var device: String

    @Argument(help: "The command, as the device takes it.")
    var text: String

    @Option(help: "Seconds until it expires unanswered.")
    var expiresIn = 86_400

    func validate() throws {
        guard !text.isEmpty, text.unicodeScalars.count <= 256,
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else {
            throw ValidationError("the command must be 1–256 printable ASCII characters")
        }
        guard (10...30 * 86_400).contains(expiresIn) else {
            throw ValidationError("--expires-in must be 10 s … 30 days")
        }
    }

    func run() throws {
        let admin = try database.administration()
        let now = WallClock.system.nowMs()
        let command = CommandRecord(
            device: device, text: text, actor: AuditRecord.localActor, queuedMs: now,
            expiresMs: now + Int64(expiresIn) * 1000)
        let stored: CommandRecord?
        do {
            stored = try admin.queueCommand(command)
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        guard let stored else { throw Output.fail("fleetctl: no device \(device)") }
        print("queued command \(stored.id) for \(device)")
    }
}
