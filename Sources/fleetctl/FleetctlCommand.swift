import ArgumentParser

/// `fleetctl`: the fleet managers' tool. Reads the database fleetd writes.
@main
struct FleetctlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetctl",
        abstract:
            "Read fleetd's alerts, trips, positions and devices; check and query fences files; manage users, tokens and the registry.",
        subcommands: [
            AlertsCommand.self, PositionsCommand.self, SummaryCommand.self, FencesCommand.self,
            DevicesCommand.self, StatusCommand.self, TripsCommand.self, UsersCommand.self,
            TokensCommand.self, AuditCommand.self, ReportCommand.self, MapCommand.self,
            WebhooksCommand.self, BackupCommand.self,
        ])
}

/// Options every database-reading subcommand takes.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "Path of fleetd's SQLite database.")
    var db = "var/fleetd.db"
}
