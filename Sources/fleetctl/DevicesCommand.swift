import ArgumentParser
import FleetModel
import FleetProtocols
import FleetSQLite
import FleetStorage
import Foundation

/// `fleetctl devices [list|add|remove]`: the device registry.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List, add or remove devices (the vehicle each tracker is fitted to).",
        subcommands: [
            DevicesListCommand.self, DevicesAddCommand.self, DevicesRemoveCommand.self,
            DevicesGroupCommand.self,
        ],
        defaultSubcommand: DevicesListCommand.self)
}

struct DevicesListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every device fleetd knows: registered ones and ones only seen in traffic.")

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    func run() throws {
        let devices = try database.reader(waitForIt: false).devices()
        if json {
            for d in devices { print(RecordCoding.line(d)) }
            return
        }
        let rows = devices.map { d in
            [
                d.ident, d.name ?? "-", d.plate ?? "-", d.vin ?? "-", d.registered ? "yes" : "no",
                d.group ?? "-", String(d.positions), Output.fixed(d.odometerM / 1000, 3),
                d.lastFix.map { RFC3339.format(millis: $0) } ?? "-",
            ]
        }
        let header = [
            "DEVICE", "NAME", "PLATE", "VIN", "REGISTERED", "GROUP", "POSITIONS", "ODOMETER KM",
            "LAST FIX (UTC)",
        ]
        for line in Output.table(header, rows, minimum: [18, 18, 12, 18, 11, 12, 10, 12, 24]) {
            print(line)
        }
    }
}

struct DevicesAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Register a device (or update its vehicle details).")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The device id: JSON \"device\", Teltonika IMEI, or NMEA id.")
    var id: String

    @Option(help: "The vehicle's name.") var name: String?
    @Option(help: "Its number plate.") var plate: String?
    @Option(help: "Its VIN.") var vin: String?
    @Option(
        help:
            "The group it belongs to (1–64 characters of letters, digits, space, '.', '_', '-'); '' takes it out of its group."
    )
    var group: String?

    func validate() throws {
        guard JSONFixDecoder.isValidDevice(id) else {
            throw ValidationError(
                "\"\(id)\" is not a device id (1–64 characters of [A-Za-z0-9._:-])")
        }
        if let group, !group.isEmpty, let why = GroupName.problem(group) {
            throw ValidationError("--group: \(why)")
        }
    }

    func run() throws {
        let admin = try database.administration()
        do {
            try admin.addDevice(
                DeviceRegistration(ident: id, name: name, plate: plate, vin: vin, group: group))
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        print("registered \(id)")
    }
}

struct DevicesRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Unregister a device; its positions, alerts and trips stay.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The device id.")
    var id: String

    func run() throws {
        let admin = try database.administration()
        try Output.change("\(id) is not a registered device") { () throws(StoreError) in
            try admin.removeDevice(id)
        }
        print("unregistered \(id)")
    }
}

struct DevicesGroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract:
            "Put devices in a group ('' takes them out of theirs), in one transaction: the ids given, or one per line of a file."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The group (1–64 characters of letters, digits, space, '.', '_', '-'), or ''.")
    var group: String

    @Argument(help: "Device ids.") var ids: [String] = []

    @Option(help: "A file of device ids, one per line ('-': standard input).")
    var idsFrom: String?

    func validate() throws {
        if !group.isEmpty, let why = GroupName.problem(group) { throw ValidationError(why) }
        guard !ids.isEmpty || idsFrom != nil else {
            throw ValidationError("name the devices, or pass --ids-from FILE")
        }
    }

    func run() throws {
        var all = ids
        if let idsFrom {
            let text: String
            if idsFrom == "-" {
                text = String(
                    decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let data = FileManager.default.contents(atPath: idsFrom) else {
                    throw Output.fail("fleetctl: cannot read \(idsFrom)")
                }
                text = String(decoding: data, as: UTF8.self)
            }
            all += text.split(whereSeparator: \.isNewline).map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
        }
        if let bad = all.enumerated().first(where: { !JSONFixDecoder.isValidDevice($0.element) }) {
            throw Output.fail(
                "fleetctl: \"\(bad.element.prefix(64))\" (id \(bad.offset + 1)) is not a device id (1–64 characters of [A-Za-z0-9._:-])"
            )
        }
        let admin = try database.administration()
        let changed: Int
        do {
            changed = try admin.setGroup(group.isEmpty ? nil : group, devices: all)
        } catch {
            throw Output.fail("fleetctl: \(error)")
        }
        let skipped = all.count - changed
        let devices = changed == 1 ? "1 device" : "\(changed) devices"
        print(
            (group.isEmpty ? "\(devices) in no group" : "\(devices) in \(group)")
                + (skipped > 0 ? " (\(skipped) ids not known or given twice, skipped)" : ""))
    }
}
