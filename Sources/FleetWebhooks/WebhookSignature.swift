import Crypto
import FleetStorage
import Foundation

/// The Standard Webhooks signature (https://www.standardwebhooks.com/):
/// HMAC-SHA256, keyed with the secret's bytes, of `{id}.{timestamp}.{body}`,
/// sent as `webhook-signature: v1,{base64}` beside `webhook-id` and
/// `webhook-timestamp` (Unix seconds). Receivers check it with the
/// specification's libraries (e.g. PyPI's `standardwebhooks`).
public enum WebhookSignature {
    /// `v1,` and the base64 signature of `body` sent as message `id` at
    /// `timestamp` (Unix seconds).
    public static func sign(secret: WebhookSecret, id: String, timestamp: Int64, body: [UInt8])
        -> String
    {
        var content = Array("\(id).\(timestamp).".utf8)
        content += body
        let mac = HMAC<SHA256>.authenticationCode(
            for: content, using: SymmetricKey(data: secret.key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The three headers of one attempt, by name.
    public static func headers(secret: WebhookSecret, id: String, timestamp: Int64, body: [UInt8])
        -> [(name: String, value: String)]
    {
        [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", sign(secret: secret, id: id, timestamp: timestamp, body: body)),
        ]
    }
}
