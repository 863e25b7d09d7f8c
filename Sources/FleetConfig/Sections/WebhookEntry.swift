import FleetStorage
import Foundation

/// One `[[webhooks]]` table of the config: a subscription as the file has
/// it (checked by `WebhookRules` as it is read, but for a `secret_file`,
/// which is read by `subscription()` at start-up, SIGHUP and
/// `--check-config`).
public struct WebhookEntry: Sendable, Equatable {
    /// The subscription, its secret empty when it comes from `secretFile`.
    public var settings: WebhookSubscription
    /// Where the secret is kept, or "" when given inline (`secret`).
    public var secretFile = ""
    /// Backfill from this alert id when the subscription is new.
    public var since: Int64?
    /// The config file and the line of `secret_file`, for errors.
    public var file: String
    public var line: Int?

    init(_ s: inout ConfigSection) throws(ConfigError) {
        file = s.file
        line = s.table.line(of: "secret_file") ?? s.table.line(of: "name")
        let name = try s.string("name", default: "")
        guard WebhookRules.validName(name) else {
            throw s.error(
                "name", "\"\(name)\" is not a webhook name (1–64 characters of [A-Za-z0-9_-])")
        }
        let secret = try s.string("secret", default: "")
        secretFile = try s.string("secret_file", default: "")
        if secret.isEmpty == secretFile.isEmpty {
            throw ConfigError(
                file: s.file, line: s.table.line(of: "secret") ?? s.table.line(of: "name"),
                key: "webhooks.secret",
                message: "give exactly one of secret and secret_file (webhook \(name))")
        }
        settings = WebhookSubscription(
            name: name, url: try s.string("url", default: ""), secret: secret,
            types: try s.strings("types"), devices: try s.strings("devices"),
            fences: try s.strings("fences"),
            allowPrivate: try s.bool("allow_private", default: false),
            batchMax: try s.int("batch_max", default: 100, range: WebhookRules.batchMaxRange),
            timeoutS: try s.double("timeout_s", default: 10, range: WebhookRules.timeoutRange),
            maxAgeH: try s.double("max_age_h", default: 72, range: WebhookRules.maxAgeRange),
            origin: .config)
        if case .integer(let v)? = s.table["since"] {
            _ = s.value("since")
            guard v >= 0 else {
                throw s.error("since", "must be an alert id (0 or more), found \(v)")
            }
            since = v
        } else if s.table["since"] != nil {
            throw s.error("since", "must be an alert id (an integer)")
        }
        var checked = settings
        if checked.secret.isEmpty { checked.secret = WebhookSecret.random().text }
        if let p = WebhookRules.problems(checked).first {
            throw s.error(p.key, "\(p.message) (webhook \(name))")
        }
    }

    /// The subscription with its secret, read from `secretFile` when set
    /// (one line; surrounding white space ignored). Throws `ConfigError`
    /// naming the webhook and the key when the file cannot be read or
    /// holds no valid secret.
    public func subscription() throws(ConfigError) -> WebhookSubscription {
        var s = settings
        guard !secretFile.isEmpty else { return s }
        let key = "webhooks.secret_file"
        guard FileManager.default.fileExists(atPath: secretFile) else {
            throw ConfigError(
                file: file, line: line, key: key,
                message: "\(secretFile) not found (webhook \(s.name))")
        }
        guard let data = FileManager.default.contents(atPath: secretFile),
            let text = String(data: data, encoding: .utf8)
        else {
            throw ConfigError(
                file: file, line: line, key: key,
                message: "cannot read \(secretFile) (webhook \(s.name))")
        }
        s.secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            _ = try WebhookSecret(s.secret)
        } catch {
            throw ConfigError(
                file: file, line: line, key: key,
                message: "\(secretFile): \(error.description) (webhook \(s.name))")
        }
        return s
    }
}
