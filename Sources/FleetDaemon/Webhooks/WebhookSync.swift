import FleetConfig
import FleetModel
import FleetStorage
import Foundation

/// The config file's `[[webhooks]]` made the stored set of config-defined
/// subscriptions, at start-up and on SIGHUP: each entry stored (its outbox
/// kept; `since` applies only to a new one), config-defined ones no longer
/// in the file deleted with their outbox. Subscriptions made through the
/// API are left alone, unless the file now defines one of the same name:
/// the file's takes it over (its outbox kept).
enum WebhookSync {
    /// The entries' subscriptions with their secrets read. Throws
    /// `ConfigError` for the first that cannot be read: nothing is applied.
    static func resolve(_ entries: [WebhookEntry]) throws(ConfigError)
        -> [(WebhookSubscription, since: Int64?)]
    {
        var out: [(WebhookSubscription, since: Int64?)] = []
        for e in entries { out.append((try e.subscription(), e.since)) }
        return out
    }

    /// What applying changed, by name.
    struct Changes: Equatable {
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
        var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
        var description: String {
            [("added", added), ("changed", changed), ("removed", removed)]
                .filter { !$0.1.isEmpty }
                .map { "\($0.0) \($0.1.joined(separator: ", "))" }
                .joined(separator: "; ")
        }
    }

    /// Stores `wanted` as the config-defined set; `actor` signs the audit entries.
    static func apply(
        _ wanted: [(WebhookSubscription, since: Int64?)], to store: any Store, actor: String
    ) throws(StoreError) -> Changes {
        let now = WallClock.system.nowMs()
        let existing = Dictionary(
            uniqueKeysWithValues: try store.webhooks().map { ($0.name, $0) })
        var changes = Changes()
        for (s, since) in wanted {
            if let old = existing[s.name], old.sameSettings(as: s) { continue }
            let audit = AuditRecord(
                timeMs: now, actor: actor, action: "webhook.put", target: s.name, detail: s.url)
            if try store.putWebhook(s, since: since, audit: audit) {
                changes.added.append(s.name)
            } else {
                changes.changed.append(s.name)
            }
        }
        let names = Set(wanted.map(\.0.name))
        for old in existing.values.sorted(by: { $0.name < $1.name })
        where old.origin == .config && !names.contains(old.name) {
            let audit = AuditRecord(
                timeMs: now, actor: actor, action: "webhook.delete", target: old.name)
            if try store.deleteWebhook(old.name, audit: audit) { changes.removed.append(old.name) }
        }
        return changes
    }
}
