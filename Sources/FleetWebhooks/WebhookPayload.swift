import FleetJSON
import FleetStorage

/// The bodies fleetd POSTs: `{"webhook": NAME, "alerts": [ … ]}`, the
/// alerts exactly as the API and `fleetctl alerts --json` give them, in id
/// order; and the test event (`fleetctl webhooks test`), which has no
/// alerts and `"test": true`.
public enum WebhookPayload {
    public static func body(webhook: String, alerts: [AlertRecord]) -> [UInt8] {
        body(webhook: webhook, lines: alerts.map(\.jsonLine))
    }

    /// The same body from the alerts' `jsonLine`s, made already.
    public static func body(webhook: String, lines: [String]) -> [UInt8] {
        var s = "{\"webhook\":" + JSONValue.quote(webhook) + ",\"alerts\":["
        for (i, line) in lines.enumerated() {
            if i > 0 { s += "," }
            s += line
        }
        s += "]}"
        return Array(s.utf8)
    }

    public static func test(webhook: String) -> [UInt8] {
        Array(("{\"webhook\":" + JSONValue.quote(webhook) + ",\"test\":true,\"alerts\":[]}").utf8)
    }
}
