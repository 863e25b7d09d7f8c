import ArgumentParser

/// `fleetbench`: the benchmarks behind `make bench`. Prints figures.
@main
struct FleetbenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetbench", abstract: "fleetd's benchmarks: print figures.",
        subcommands: [
            GeoBench.self, DecodeBench.self, TrackBench.self, StoreBench.self, IngestBench.self,
            APIBench.self, WebhookBench.self, AccuracyBench.self, PostgresStoreBench.self,
            TCPBench.self,
            AttackBench.self, MailBench.self, ReportBench.self,
        ])
}
