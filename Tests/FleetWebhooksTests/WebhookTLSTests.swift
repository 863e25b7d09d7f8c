import FleetStorage
import FleetTestSupport
import Foundation
import Synchronization
import Testing

@testable import FleetWebhooks

/// An https receiver (`receiver.py` with a certificate of a test CA for
/// `hooks.test`, a name no DNS knows): the sender connects to the address
/// its own resolution checked, while TLS still sends and verifies the
/// name. Were the URL resolved a second time (by the HTTP client), the
/// request could not be made at all.
@Suite(.offPool) struct WebhookTLSTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/pytools/bin/python3").path
    static let script = root.appendingPathComponent("Tests/EndToEndTests/Webhooks/receiver.py").path

    /// Runs `program` with `args`; throws with its output when it fails.
    @discardableResult
    static func run(_ program: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw TestSupportError("\(program) \(args): \(text)")
        }
        return text
    }

    @Test func anHTTPSReceiverIsReachedAtTheCheckedAddressByItsName() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: run `make setup-test`")
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetd-hooks-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let openssl = "/usr/bin/openssl"
        try Self.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                "/CN=fleetd test CA", "-keyout", path("ca.key"), "-out", path("ca.crt"),
            ])
        try Self.run(
            openssl,
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=hooks.test", "-keyout",
                path("server.key"), "-out", path("server.csr"),
            ])
        try "subjectAltName = DNS:hooks.test\n".write(
            toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try Self.run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey",
                path("ca.key"), "-CAcreateserial", "-days", "2", "-extfile", path("san.ext"),
                "-out", path("server.crt"),
            ])
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let secretText = "whsec_" + Data(key).base64EncodedString()
        let secret = try WebhookSecret(secretText)
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: Self.python)
        receiver.arguments = [
            Self.script, secretText, path("received.jsonl"), path("control.json"), "0",
            path("server.crt"), path("server.key"),
        ]
        let out = Pipe()
        receiver.standardOutput = out
        receiver.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try receiver.run()
        defer {
            // SIGKILL: the test process may ignore SIGTERM, and its children inherit that.
            kill(receiver.processIdentifier, SIGKILL)
            receiver.waitUntilExit()
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let port = try #require(
            Int(
                String(decoding: line, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)))

        let asked = Mutex<[String]>([])
        let resolve: WebhookSender.Resolver = { host, _ in
            asked.withLock { $0.append(host) }
            return .success(["127.0.0.1"])
        }
        func subscription(_ host: String) -> WebhookSubscription {
            WebhookSubscription(
                name: "tls", url: "https://\(host):\(port)/hooks", secret: secretText,
                allowPrivate: true, timeoutS: 5)
        }
        let body = Array(#"{"alerts":[]}"#.utf8)
        let now = Int64(Date().timeIntervalSince1970)

        let sender = WebhookSender(caFile: path("ca.crt"), resolve: resolve)
        let sent = await sender.send(
            subscription("hooks.test"), secret: secret, messageId: "msg_tls1", body: body, nowS: now
        )
        #expect(sent == .answered(status: 200, retryAfter: nil), "\(sent)")
        // Once more, on the pinned client.
        let again = await sender.send(
            subscription("hooks.test"), secret: secret, messageId: "msg_tls2", body: body, nowS: now
        )
        #expect(again == .answered(status: 200, retryAfter: nil), "\(again)")
        #expect(asked.withLock { $0 } == ["hooks.test", "hooks.test"])
        // The name is still what TLS checks: a host the certificate does not name fails.
        let otherName = await sender.send(
            subscription("other.test"), secret: secret, messageId: "msg_tls3", body: body, nowS: now
        )
        #expect(otherName != .answered(status: 200, retryAfter: nil), "\(otherName)")
        await sender.shutdown()
        // Without the test CA trusted, the certificate is refused.
        let untrusting = WebhookSender(resolve: resolve)
        let refused = await untrusting.send(
            subscription("hooks.test"), secret: secret, messageId: "msg_tls4", body: body, nowS: now
        )
        #expect(refused != .answered(status: 200, retryAfter: nil), "\(refused)")
        await untrusting.shutdown()
        // The receiver verified both signed requests (and saw no others).
        let log = try String(contentsOfFile: path("received.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(log.count == 2)
        #expect(log.allSatisfy { $0.contains(#""verified": true"#) }, "\(log)")
    }
}
