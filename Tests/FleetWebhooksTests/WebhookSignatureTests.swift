import FleetStorage
import FleetTestSupport
import Foundation
import Testing

@testable import FleetWebhooks

/// Signatures as the Standard Webhooks specification makes them: its own
/// example, and every signature of ours checked by its reference library
/// (PyPI `standardwebhooks`, installed by `make test`'s set-up in `.build/pytools`).
@Suite(.offPool) struct WebhookSignatureTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theSpecificationsExampleSignsAsItSays() throws {
        let secret = try WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = WebhookSignature.sign(
            secret: secret, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
            body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func secretsAreReadStrictlyAndNeverPrinted() throws {
        let s = WebhookSecret.random()
        #expect(s.key.count == 32 && s.text.hasPrefix("whsec_"))
        #expect(try WebhookSecret(s.text) == s)
        #expect(!s.description.contains(s.text.dropFirst(6)))
        #expect(throws: WebhookSecretError.self) {
            try WebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        }
        #expect(throws: WebhookSecretError.self) { try WebhookSecret("whsec_not base64!") }
        // 16 bytes: too short.
        #expect(throws: WebhookSecretError.self) {
            try WebhookSecret("whsec_AAAAAAAAAAAAAAAAAAAAAA==")
        }
        #expect(WebhookSecret.random(bytes: 8).key.count == 24)
    }

    @Test func theReferenceLibraryVerifiesOurSignatures() throws {
        let python = Self.root.appendingPathComponent(".build/pytools/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("\(python) is missing: run `make setup-test`")
            return
        }
        let secret = WebhookSecret.random()
        let body = Array(
            #"{"webhook":"dispatch","alerts":[{"id":1,"type":"geofence_exit","fence":"dépôt"}]}"#
                .utf8)
        let now = Int64(Date().timeIntervalSince1970)
        let headers = WebhookSignature.headers(
            secret: secret, id: "fleetd_batch_7", timestamp: now, body: body)
        let script = """
            import json, sys
            from standardwebhooks.webhooks import Webhook
            a = json.load(sys.stdin)
            body = bytes(a["body"])
            try:
                Webhook(a["secret"]).verify(body, a["headers"])
                print("verified")
            except Exception as e:
                print("refused:", e)
            tampered = body.replace(b"exit", b"entr")
            try:
                Webhook(a["secret"]).verify(tampered, a["headers"])
                print("tampered verified")
            except Exception:
                print("tampered refused")
            """
        let input: [String: Any] = [
            "secret": secret.text, "body": body.map(Int.init),
            "headers": Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) }),
        ]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        try p.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(out == "verified\ntampered refused\n", "\(out)")
    }
}
