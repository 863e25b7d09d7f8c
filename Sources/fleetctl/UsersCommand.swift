import ArgumentParser
import FleetAuth
import FleetModel
import FleetProtocols
import FleetSQLite
import FleetStorage
import Foundation

/// `fleetctl users [list|add|remove|passwd|groups|email]`: the people who log in to the API and console.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List, add or remove the people who log in to the API and the console.",
        subcommands: [
            UsersListCommand.self, UsersAddCommand.self, UsersRemoveCommand.self,
            UsersPasswdCommand.self, UsersGroupsCommand.self, UsersEmailCommand.self,
        ],
        defaultSubcommand: UsersListCommand.self)
}

extension Role: ExpressibleByArgument {}

struct UsersListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every user: name, role, what they see, when added.")

    @OptionGroup var database: DatabaseOptions
    @Flag(name: .long, help: "One JSON object per line.") var json = false

    func run() throws {
        let users = try database.reader(waitForIt: false).users()
        if json {
            for u in users { print(RecordCoding.line(u)) }
            return
        }
        let rows = users.map {
            [
                $0.name, $0.role.rawValue, Self.sees($0), $0.email ?? "-",
                RFC3339.format(millis: $0.createdMs),
            ]
        }
        for line in Output.table(
            ["USER", "ROLE", "SEES", "EMAIL", "ADDED (UTC)"], rows, minimum: [16, 8, 16, 16, 24])
        {
            print(line)
        }
    }
}

extension UsersListCommand {
    /// What a user sees, for the table: every vehicle, its groups, or a driver's vehicle.
    static func sees(_ u: UserRecord) -> String {
        switch u.scope {
        case .all: "every vehicle"
        case .groups(let g): "groups " + g.joined(separator: ", ")
        case .device(let d): u.key.map { "the vehicle of key \($0)" } ?? "vehicle \(d)"
        }
    }
}

struct UsersAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract:
            "Add a user; asks the password twice on a terminal, or reads one line of standard input with --password-stdin."
    )

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The user's name: 1–64 characters of [A-Za-z0-9._@-].") var name: String
    @Option(
        help:
            "driver (sees one vehicle and its trips), viewer (reads), operator (also edits devices, acknowledges alerts) or admin."
    )
    var role: Role
    @Option(
        name: .customLong("group"),
        help:
            "Limit a viewer or operator to this group's vehicles (repeatable); without it, every vehicle."
    )
    var groups: [String] = []
    @Option(help: "A driver's vehicle (its device id).") var device: String?
    @Option(help: "Where notification rules that name the user mail them.") var email: String?
    @Option(
        help:
            "A driver's iButton key (16 hexadecimal digits): they see the vehicle that read it last."
    )
    var key: String?
    @Flag(help: "Read the password from standard input (one line) instead of asking.")
    var passwordStdin = false

    func validate() throws {
        guard UserRecord.validName(name) else {
            throw ValidationError(
                "\"\(name)\" is not a user name (1–64 characters of [A-Za-z0-9._@-])")
        }
        if let device, !JSONFixDecoder.isValidDevice(device) {
            throw ValidationError(
                "--device: \"\(device)\" is not a device id (1–64 characters of [A-Za-z0-9._:-])")
        }
        let probe = UserRecord(
            name: name, role: role, passwordHash: "", createdMs: 0, groups: groups, device: device,
            email: email, key: key)
        if let why = probe.problem { throw ValidationError(why) }
    }

    func run() throws {
        let password = try PasswordPrompt.read(stdin: passwordStdin)
        let user = UserRecord(
            name: name, role: role, passwordHash: PasswordHash.make(password),
            createdMs: WallClock.system.nowMs(), groups: groups, device: device, email: email,
            key: key)
        let admin = try database.administration()
        try Output.change("user \(name) exists (use users passwd)") { () throws(StoreError) in
            try admin.addUser(user)
        }
        print("added user \(name) (\(role.rawValue); sees \(UsersListCommand.sees(user)))")
    }
}

struct UsersGroupsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groups",
        abstract:
            "Limit a viewer or operator to some groups' vehicles, or (with no group) let them see every vehicle; their sessions end."
    )

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The user's name.") var name: String
    @Argument(help: "The groups (none: every vehicle).") var groups: [String] = []

    func run() throws {
        let reader = try database.reader(waitForIt: false)
        guard var user = try reader.user(named: name) else {
            throw Output.fail("fleetctl: no user \(name)")
        }
        user.groups = Array(Set(groups)).sorted()
        if let why = user.problem { throw Output.fail("fleetctl: \(why)") }
        let admin = try database.administration()
        let sorted = user.groups
        try Output.change("no user \(name)") { () throws(StoreError) in
            try admin.setUserGroups(name, groups: sorted)
        }
        print("\(name) now sees \(UsersListCommand.sees(user))")
    }
}

struct UsersEmailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "email",
        abstract:
            "Set where notification rules that name the user mail them (no address: none)."
    )

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The user's name.") var name: String
    @Argument(help: "The address (local@domain); none: the user gets no mail.") var email: String?

    func validate() throws {
        if let email, let why = MailAddress.problem(email) { throw ValidationError(why) }
    }

    func run() throws {
        let admin = try database.administration()
        let address = email
        try Output.change("no user \(name)") { () throws(StoreError) in
            try admin.setUserEmail(name, email: address)
        }
        print(email.map { "\(name) is mailed at \($0)" } ?? "\(name) has no email now")
    }
}

struct UsersRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a user; their sessions end within a minute.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The user's name.") var name: String

    func run() throws {
        let admin = try database.administration()
        try Output.change("no user \(name)") { () throws(StoreError) in
            try admin.removeUser(name)
        }
        print("removed user \(name)")
    }
}

struct UsersPasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Set a user's password.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The user's name.") var name: String
    @Flag(help: "Read the password from standard input (one line) instead of asking.")
    var passwordStdin = false

    func run() throws {
        let password = try PasswordPrompt.read(stdin: passwordStdin)
        let hash = PasswordHash.make(password)
        let admin = try database.administration()
        try Output.change("no user \(name)") { () throws(StoreError) in
            try admin.setPassword(name, hash: hash)
        }
        print("password of \(name) changed")
    }
}

/// Reads a new password: twice without echo on a terminal, or one line of
/// standard input. Throws with the reason when it is unfit.
enum PasswordPrompt {
    static func read(stdin: Bool) throws -> String {
        let password: String
        if stdin {
            guard let line = readLine(strippingNewline: true) else {
                throw Output.fail("fleetctl: no password on standard input")
            }
            password = line
        } else {
            guard isatty(0) == 1 else {
                throw Output.fail(
                    "fleetctl: standard input is not a terminal: pass --password-stdin to read the password from it"
                )
            }
            let first = String(cString: getpass("Password: "))
            let second = String(cString: getpass("Again: "))
            guard first == second else { throw Output.fail("fleetctl: the passwords differ") }
            password = first
        }
        if let problem = PasswordHash.problem(password) {
            throw Output.fail("fleetctl: \(problem)")
        }
        return password
    }
}
