import ArgumentParser
import FleetModel
import FleetSQLite
import FleetStorage
import FleetWebhooks
import Foundation
import Synchronization

/// `fleetctl webhooks …`: webhook subscriptions and their deliveries.
struct WebhooksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Webhook subscriptions: how their deliveries stand, retries, tests, secrets.",
        subcommands: [
            ListCommand.self, RetryCommand.self, TestCommand.self, SecretCommand.self,
        ],
        defaultSubcommand: ListCommand.self)

    /// `fleetctl webhooks [list]`: each subscription and how it stands.
    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract:
                "Each subscription: delivered, pending, oldest pending, last error, refused and dead-lettered alerts."
        )

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "One JSON object per line.") var json = false

        func run() throws {
            let all = try database.reader(waitForIt: false).webhookStatuses()
            if json {
                for s in all { print(RecordCoding.line(s)) }
                return
            }
            if all.isEmpty {
                print("no webhooks ([[webhooks]] in the config, or PUT /api/v1/webhooks/NAME)")
                return
            }
            let now = WallClock.system.nowMs()
            let rows = all.map { s -> [String] in
                [
                    s.subscription.name,
                    s.subscription.disabled == nil ? s.subscription.origin.rawValue : "DISABLED",
                    String(s.delivered), String(s.pending),
                    s.oldestPendingMs.map { Self.age(now - $0) } ?? "-",
                    String(s.refused), String(s.dead),
                    s.lastDeliveryMs.map { RFC3339.format(millis: $0) } ?? "never",
                    s.lastError ?? "-",
                ]
            }
            for line in Output.table(
                [
                    "WEBHOOK", "STATE", "DELIVERED", "PENDING", "OLDEST", "REFUSED", "DEAD",
                    "LAST DELIVERY (UTC)", "LAST ERROR",
                ], rows, minimum: [12, 8, 9, 7, 6, 7, 4, 24, 10])
            {
                print(line)
            }
            for s in all {
                if let why = s.subscription.disabled {
                    print(
                        "\(s.subscription.name) is disabled: \(why) (fleetctl webhooks retry \(s.subscription.name))"
                    )
                }
            }
        }

        /// `12s`, `5m`, `3h`, `2d`.
        static func age(_ ms: Int64) -> String {
            let s = max(ms / 1000, 0)
            if s < 120 { return "\(s)s" }
            if s < 7200 { return "\(s / 60)m" }
            if s < 172_800 { return "\(s / 3600)h" }
            return "\(s / 86400)d"
        }
    }

    /// `fleetctl webhooks retry NAME`: re-queue refused and dead-lettered batches.
    struct RetryCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract:
                "Re-queue a subscription's refused and dead-lettered batches (same webhook-id) and enable it again after a 410."
        )

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The subscription's name.") var name: String

        func run() throws {
            let audit = AuditRecord(
                timeMs: WallClock.system.nowMs(), actor: AuditRecord.localActor,
                action: "webhook.retry", target: name)
            var requeued: Int?
            let admin = try database.administration()
            try Output.change("no webhook \(name)") { () throws(StoreError) in
                requeued = try admin.retryWebhook(name, audit: audit)
                return requeued != nil
            }
            print("webhook \(name): \(requeued ?? 0) batches re-queued; enabled")
        }
    }

    /// `fleetctl webhooks test NAME`: one signed test event, now.
    struct TestCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract:
                "Send a signed test event ({\"webhook\":NAME,\"test\":true,\"alerts\":[]}) to a subscription's URL and print the answer."
        )

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The subscription's name.") var name: String

        func run() throws {
            let all = try database.reader(waitForIt: false).webhookStatuses()
            guard let s = all.first(where: { $0.subscription.name == name })?.subscription else {
                throw Output.fail("fleetctl: no webhook \(name)")
            }
            let secret: WebhookSecret
            do {
                secret = try WebhookSecret(s.secret)
            } catch {
                throw Output.fail("fleetctl: webhook \(name): \(error)")
            }
            let id = WebhookBatch.newMessageId()
            let outcome = Blocking.wait { () async throws(Never) -> WebhookSender.Outcome? in
                let sender = WebhookSender()
                let o = await sender.send(
                    s, secret: secret, messageId: id, body: WebhookPayload.test(webhook: name),
                    nowS: Int64(Date().timeIntervalSince1970))
                await sender.shutdown()
                return o
            }
            switch outcome.get() {
            case .answered(let status, _)? where (200..<300).contains(status):
                print("webhook \(name): \(s.url) answered \(status) to test event \(id)")
            case .answered(let status, _)?:
                throw Output.fail("fleetctl: webhook \(name): \(s.url) answered \(status)")
            case .failed(let f)?:
                throw Output.fail("fleetctl: webhook \(name): \(f)")
            case nil:
                throw Output.fail("fleetctl: webhook \(name): no outcome")
            }
        }
    }

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
