import ArgumentParser
import FleetAuth
import FleetModel
import FleetSQLite
import FleetStorage
import Foundation

/// `fleetctl tokens [list|add|revoke]`: programs' credentials for the API.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "List, add or revoke the API tokens programs use (Authorization: Bearer).",
        subcommands: [TokensListCommand.self, TokensAddCommand.self, TokensRevokeCommand.self],
        defaultSubcommand: TokensListCommand.self)
}

struct TokensListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Every token: name, role, created, last used (never the secret).")

    @OptionGroup var database: DatabaseOptions
    @Flag(name: .long, help: "One JSON object per line.") var json = false

    func run() throws {
        let tokens = try database.reader(waitForIt: false).tokens()
        if json {
            for t in tokens { print(RecordCoding.line(t)) }
            return
        }
        let rows = tokens.map {
            [
                $0.name, $0.role.rawValue, RFC3339.format(millis: $0.createdMs),
                $0.lastUsedMs.map { RFC3339.format(millis: $0) } ?? "never",
            ]
        }
        for line in Output.table(
            ["TOKEN", "ROLE", "CREATED (UTC)", "LAST USED (UTC)"], rows, minimum: [16, 8, 24, 24])
        {
            print(line)
        }
    }
}

struct TokensAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Make a token and print its secret, once; only its hash is kept.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The token's name: 1–64 characters of [A-Za-z0-9._@-].") var name: String
    @Option(help: "viewer, operator or admin.") var role: Role

    func validate() throws {
        guard UserRecord.validName(name) else {
            throw ValidationError(
                "\"\(name)\" is not a token name (1–64 characters of [A-Za-z0-9._@-])")
        }
        guard role != .driver else {
            throw ValidationError(
                "a token cannot be a driver: drivers are users (users add --role driver)")
        }
    }

    func run() throws {
        let secret = TokenSecret.make()
        let token = TokenRecord(
            name: name, role: role, secretHash: TokenSecret.hash(secret),
            createdMs: WallClock.system.nowMs(), lastUsedMs: nil)
        let admin = try database.administration()
        try Output.change("token \(name) exists (revoke it first)") { () throws(StoreError) in
            try admin.addToken(token)
        }
        print(secret)
        FileHandle.standardError.write(
            Data("token \(name) (\(role.rawValue)) made; the secret above is shown only now\n".utf8)
        )
    }
}

struct TokensRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token; requests with it fail within a minute.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The token's name.") var name: String

    func run() throws {
        let admin = try database.administration()
        try Output.change("no token \(name)") { () throws(StoreError) in
            try admin.revokeToken(name)
        }
        print("revoked token \(name)")
    }
}
