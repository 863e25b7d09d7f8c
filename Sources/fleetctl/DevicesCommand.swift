import ArgumentParser
import FleetModel
import FleetProtocols
import FleetSQLite
import FleetStorage

/// `fleetctl devices [list|add|remove]`: the device registry.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List, add or remove devices (the vehicle each tracker is fitted to).",
        subcommands: [DevicesListCommand.self, DevicesAddCommand.self, DevicesRemoveCommand.self],
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
