import ArgumentParser
import FleetWebhooks

/// `fleetctl webhooks …`: webhook subscriptions' tools.
struct WebhooksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Webhook signing secrets.",
        subcommands: [SecretCommand.self])

    /// `fleetctl webhooks secret`: a new signing secret.
    struct SecretCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "secret",
            abstract:
                "Print a new signing secret in the Standard Webhooks form (whsec_ and the base64 of 32 random bytes)."
        )

        @Option(name: .long, help: "Random bytes in the key (24 at least).")
        var bytes = 32

        func validate() throws {
            guard (WebhookSecret.minimumBytes...1024).contains(bytes) else {
                throw ValidationError(
                    "--bytes must be \(WebhookSecret.minimumBytes)…1024, found \(bytes)")
            }
        }

        func run() {
            print(WebhookSecret.random(bytes: bytes).text)
        }
    }
}
