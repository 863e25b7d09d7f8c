import Foundation

/// A webhook's signing key in the Standard Webhooks form: `whsec_` and the
/// base64 of the key's bytes, at least 24 of them
/// (https://www.standardwebhooks.com/, "Signature scheme").
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The key's bytes.
    public let key: [UInt8]

    /// The prefix of the text form.
    public static let prefix = "whsec_"
    /// Fewest key bytes taken.
    public static let minimumBytes = 24

    /// Reads `whsec_…`. Throws naming what is wrong (never the secret).
    public init(_ text: String) throws(WebhookSecretError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix) else {
            throw WebhookSecretError("does not start with \(Self.prefix)")
        }
        guard let data = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))) else {
            throw WebhookSecretError("the part after \(Self.prefix) is not base64")
        }
        guard data.count >= Self.minimumBytes else {
            throw WebhookSecretError(
                "holds \(data.count) bytes; at least \(Self.minimumBytes) random bytes are needed")
        }
        key = Array(data)
    }

    /// A new secret of `bytes` random bytes (the system's CSPRNG).
    public static func random(bytes: Int = 32) -> WebhookSecret {
        var g = SystemRandomNumberGenerator()
        return WebhookSecret(
            key: (0..<max(bytes, minimumBytes)).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    init(key: [UInt8]) { self.key = key }

    /// `whsec_` + base64: the form to hand to a receiver.
    public var text: String { Self.prefix + Data(key).base64EncodedString() }

    /// Never the key: secrets stay out of logs.
    public var description: String { "whsec_… (\(key.count) bytes)" }
}

/// A secret that cannot be used, and why.
public struct WebhookSecretError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
