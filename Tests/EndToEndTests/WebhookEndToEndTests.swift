import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A webhook receiver on loopback (`Webhooks/receiver.py`): verifies every
/// request with PyPI's `standardwebhooks` (the specification's own
/// library), logs what it got, and answers as its control file says.
final class WebhookReceiver {
    let dir: URL
    let secret: String
    private(set) var port = 0
    private var process: Process?
    var logPath: String { dir.appendingPathComponent("received.jsonl").path }
    var controlPath: String { dir.appendingPathComponent("control.json").path }

    static var python: String {
        Binaries.packageRoot.appendingPathComponent(".build/pytools/bin/python3").path
    }
    static var script: String {
        Binaries.packageRoot.appendingPathComponent("Tests/EndToEndTests/Webhooks/receiver.py").path
    }

    init(dir: URL, secret: String) throws {
        self.dir = dir
        self.secret = secret
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        control([:])
        try start()
    }

    /// A receiver in a folder of its own, with a secret `fleetctl webhooks
    /// secret` made; nil (recorded as an issue) without `make setup-test`'s Python.
    static func started() throws -> WebhookReceiver? {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("\(python) is missing: run `make setup-test`")
            return nil
        }
        let secret = try runTool(try Binaries.path("fleetctl"), ["webhooks", "secret"]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return try WebhookReceiver(
            dir: TestScratch.root.appendingPathComponent(
                "fleetd-webhooks-\(UUID().uuidString.prefix(8))"), secret: secret)
    }

    /// Starts it (on the same port as before, after `stop`).
    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python)
        p.arguments = [Self.script, secret, logPath, controlPath, String(port)]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let line = out.fileHandleForReading.availableLine(timeout: 10)
        guard let got = Int(line ?? "") else {
            p.terminate()
            throw E2EError("the receiver did not start: \(line ?? "nothing")")
        }
        port = got
        process = p
    }

    /// Down: connections are refused.
    func stop() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    func control(_ settings: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: settings)
        try! data.write(to: URL(fileURLWithPath: controlPath + ".tmp"))
        rename(controlPath + ".tmp", controlPath)
    }

    struct Request {
        let id: String
        let alerts: [Int]
        let status: Int
        let verified: Bool
        let webhook: String
        let test: Bool
        /// The body ended before its Content-Length: the sender was killed
        /// mid-request; there was nothing to verify.
        let truncated: Bool
        /// Why the signature did not verify (the library's message).
        let error: String?
    }

    var requests: [Request] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            guard let o = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            else { return nil }
            return Request(
                id: o["id"] as? String ?? "", alerts: o["alerts"] as? [Int] ?? [],
                status: o["status"] as? Int ?? 0, verified: o["verified"] as? Bool ?? false,
                webhook: o["webhook"] as? String ?? "", test: o["test"] as? Bool ?? false,
                truncated: o["truncated"] as? Bool ?? false, error: o["error"] as? String)
        }
    }

    /// The alert ids `webhook` got with a 2xx answer.
    func delivered(_ webhook: String) -> Set<Int> {
        Set(requests.filter { $0.webhook == webhook && $0.status < 300 }.flatMap(\.alerts))
    }

    deinit { stop() }
}

extension FileHandle {
    /// The first line written to this pipe, within `timeout` seconds.
    func availableLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var data = Data()
        var p = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while Date() < deadline {
            guard poll(&p, 1, 100) > 0 else { continue }
            let chunk = availableData
            if chunk.isEmpty { break }
            data += chunk
            if let nl = data.firstIndex(of: 10) {
                return String(decoding: data[..<nl], as: UTF8.self)
            }
        }
        return nil
    }
}

/// Webhooks end to end: a real receiver checks every signature with the
/// specification's library while it is down, answers 500, is slower than
/// the timeout, refuses a batch, and fleetd is SIGKILLed during delivery.
@Suite(.serialized, .offPool) struct WebhookEndToEndTests {
    static let t0: Int64 = 1_700_000_000_000

    static func config(port: Int, secret: String, extra: String = "") -> String {
        """
        [[webhooks]]
        name = "all"
        url = "http://127.0.0.1:\(port)/all"
        secret = "\(secret)"
        allow_private = true
        batch_max = 5
        timeout_s = 1
        [[webhooks]]
        name = "exits"
        url = "http://localhost:\(port)/exits"
        secret = "\(secret)"
        types = ["geofence_exit"]
        allow_private = true
        batch_max = 3
        timeout_s = 1
        \(extra)
        """
    }

    /// Sends `n` fixes that cross the depot's edge (each after a device's
    /// first raises an enter or an exit), `step` onwards.
    static func cross(_ port: Int, _ n: Int, step: inout Int) throws {
        let client = try UDPClient(host: "127.0.0.1", port: port)
        for _ in 0..<n {
            let device = "truck-\(step % 3)"
            let k = step / 3
            let line = fixLine(
                step + 1, t0 + Int64(k) * 10_000, lat: k % 2 == 0 ? 47.95 : 48.05, lon: 11.05,
                device: device)
            guard exchange(client, [line]) != nil else {
                throw E2EError("fix \(step) not acknowledged")
            }
            step += 1
        }
    }

    /// Waits (bounded) until `done` holds.
    static func wait(_ seconds: Double, _ done: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try done() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try done()
    }

    @Test func everyAlertArrivesSignedInOrderThroughOutagesAndKills() throws {
        guard let receiver = try WebhookReceiver.started() else { return }
        let secret = receiver.secret
        var a = try APIEndToEndTests.APIDaemon(
            extra: Self.config(port: receiver.port, secret: secret))
        var step = 0

        // Up: delivered as they come.
        try Self.cross(a.d.port, 12, step: &step)
        // Down (connections refused), then 500s, then slower than timeout_s.
        receiver.stop()
        try Self.cross(a.d.port, 12, step: &step)
        Thread.sleep(forTimeInterval: 1.5)
        receiver.control(["status": 500])
        try receiver.start()
        try Self.cross(a.d.port, 12, step: &step)
        Thread.sleep(forTimeInterval: 1.5)
        receiver.control(["delay_s": 1.5])
        try Self.cross(a.d.port, 6, step: &step)
        Thread.sleep(forTimeInterval: 1.5)
        // Killed while retrying; then while delivering, three times over.
        a.d.crash()
        receiver.control([:])
        for pause in [0.0, 0.05, 0.3] {
            a = try APIEndToEndTests.APIDaemon(
                extra: Self.config(port: receiver.port, secret: secret), over: a)
            try Self.cross(a.d.port, 9, step: &step)
            Thread.sleep(forTimeInterval: pause)
            a.d.crash()
        }
        a = try APIEndToEndTests.APIDaemon(
            extra: Self.config(port: receiver.port, secret: secret), over: a)

        let alerts = try a.d.fleetctl("alerts")
        let all = Set(alerts.compactMap { $0["id"] as? Int })
        let exits = Set(
            alerts.filter { $0["type"] as? String == "geofence_exit" }.compactMap {
                $0["id"] as? Int
            })
        #expect(all.count == step - 3)  // every fix but each device's first raised one
        let arrived = Self.wait(90) {
            receiver.delivered("all") == all && receiver.delivered("exits") == exits
        }
        #expect(
            arrived,
            "all: missing \(all.subtracting(receiver.delivered("all")).sorted()); exits: missing \(exits.subtracting(receiver.delivered("exits")).sorted())"
        )

        let requests = receiver.requests
        let unverified = requests.filter { !$0.truncated && !$0.verified }
        #expect(
            unverified.isEmpty,
            "a signature did not verify: \(unverified.map { "\($0.id): \($0.error ?? "?")" })")
        #expect(requests.contains { $0.status == 500 } && requests.contains { $0.status == 200 })
        for name in ["all", "exits"] {
            let ok = requests.filter { $0.webhook == name && $0.status < 300 }
            // In order: each new batch after the last; a repeat only of a
            // batch already sent (the same webhook-id: in flight at a kill).
            var seen: [String: [Int]] = [:]
            var last = 0
            for r in ok {
                if let before = seen[r.id] {
                    #expect(before == r.alerts, "\(name): \(r.id) changed")
                    continue
                }
                #expect(r.alerts.first ?? 0 > last, "\(name): \(r.alerts) after \(last)")
                #expect(r.alerts == r.alerts.sorted())
                last = r.alerts.last ?? last
                seen[r.id] = r.alerts
            }
            // An alert in two batches never: ids are per batch.
            let firsts = seen.values.flatMap { $0 }
            #expect(firsts.count == Set(firsts).count)
            let repeats = ok.count - seen.count
            print("webhook \(name): \(seen.count) batches, \(repeats) repeated after a kill")
        }
        let status = try #require(
            try a.d.fleetctl("webhooks").first { $0["name"] as? String == "all" })
        #expect(status["pending"] as? Int == 0 && status["delivered"] as? Int ?? 0 >= all.count)

        // A poison batch: refused three times, then skipped; the next goes.
        let next = (all.max() ?? 0) + 1
        receiver.control(["refuse_alert": next])
        try Self.cross(a.d.port, 12, step: &step)
        let refused = Self.wait(30) {
            (try? a.d.fleetctl("webhooks").first { $0["name"] as? String == "all" }?["refused"]
                as? Int ?? 0) ?? 0 > 0
        }
        #expect(refused)
        let allNow = Set(try a.d.fleetctl("alerts").compactMap { $0["id"] as? Int })
        let skipped = Set(
            receiver.requests.filter { $0.webhook == "all" && $0.status == 400 }.flatMap(\.alerts))
        #expect(skipped.contains(next))
        #expect(Self.wait(30) { receiver.delivered("all") == allNow.subtracting(skipped) })
        // Re-queued by hand: delivered with the webhook-id it was refused under.
        receiver.control([:])
        let retry = try runTool(
            try Binaries.path("fleetctl"), ["webhooks", "retry", "all", "--db", a.d.database])
        #expect(retry.status == 0, "\(retry.err)")
        #expect(Self.wait(30) { receiver.delivered("all") == allNow })
        let refusedIds = Set(receiver.requests.filter { $0.status == 400 }.map(\.id))
        #expect(
            receiver.requests.contains { refusedIds.contains($0.id) && $0.status == 200 })

        // The test event, signed the same way.
        let test = try runTool(
            try Binaries.path("fleetctl"), ["webhooks", "test", "exits", "--db", a.d.database])
        #expect(test.status == 0, "\(test.err)")
        #expect(receiver.requests.last?.test == true && receiver.requests.last?.verified == true)
        #expect(a.d.stop() == 0)
        receiver.stop()
    }
}

/// Subscriptions as an operator and an admin change them: the config file
/// and SIGHUP, the API, `since`, and the address rule.
@Suite(.serialized, .offPool) struct WebhookSubscriptionEndToEndTests {
    @Test func configReloadAPIAndAddressRule() async throws {
        guard let receiver = try WebhookReceiver.started() else { return }
        let secret = receiver.secret
        let dir = receiver.dir
        let secretFile = dir.appendingPathComponent("cfg.secret").path
        try (secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
        func entry(_ name: String, file: String = secretFile) -> String {
            """
            [[webhooks]]
            name = "\(name)"
            url = "http://127.0.0.1:\(receiver.port)/\(name)"
            secret_file = "\(file)"
            allow_private = true
            """
        }
        let a = try APIEndToEndTests.APIDaemon(
            extra: entry("cfg"), httpExtra: "webhooks_allow_private = true")
        let admin = a.auth("admin")
        var step = 0
        // Each device's first fix raises nothing; every later one an enter or an exit.
        try WebhookEndToEndTests.cross(a.d.port, 6, step: &step)
        #expect(WebhookEndToEndTests.wait(10) { receiver.delivered("cfg").count == 3 })

        // The API: admin only; the config's own are read-only there.
        #expect(try await a.http.get("/api/v1/webhooks", a.auth("operator")).status == 403)
        let list = try await a.http.get("/api/v1/webhooks", admin)
        #expect(list.items.map { $0["name"] as? String } == ["cfg"])
        #expect(list.items.first?["origin"] as? String == "config")
        #expect(list.items.first?["secret"] == nil)
        let put = { (name: String, body: String) in
            try await a.http.send(
                .PUT, "/api/v1/webhooks/\(name)",
                headers: admin + [("Content-Type", "application/json")], body: body)
        }
        #expect(try await put("cfg", #"{"url":"https://x.example/"}"#).status == 409)
        let bad = try await put(
            "api1", #"{"url":"ftp://x/","types":["teleport"],"batch_max":0,"colour":"red"}"#)
        #expect(bad.status == 422)
        let problems = (bad.json["problems"] as? [String] ?? []).map {
            String($0.prefix { $0 != ":" })
        }
        #expect(Set(problems) == ["colour", "url", "types", "batch_max"], "\(bad.body)")
        // Made with a secret of fleetd's making, shown once; backfilled from alert 0.
        let made = try await put(
            "made", #"{"url":"https://made.example/","types":["geofence_exit"]}"#)
        #expect(made.status == 201)
        #expect((made.json["secret"] as? String)?.hasPrefix("whsec_") == true)
        #expect(try await a.http.get("/api/v1/webhooks/made", admin).json["secret"] == nil)
        let late = try await put(
            "late",
            #"{"url":"http://127.0.0.1:\#(receiver.port)/late","secret":"\#(secret)","allow_private":true,"since":0,"batch_max":2}"#
        )
        #expect(late.status == 201 && late.json["secret"] == nil)
        #expect(WebhookEndToEndTests.wait(10) { receiver.delivered("late") == [1, 2, 3] })
        #expect(
            try await put(
                "late", #"{"url":"http://127.0.0.1:\#(receiver.port)/late","allow_private":true}"#
            ).status == 200)

        // Without allow_private, a loopback address is refused before any request.
        #expect(
            try await put(
                "internal",
                #"{"url":"http://127.0.0.1:\#(receiver.port)/internal","secret":"\#(secret)"}"#
            ).status == 201)
        try WebhookEndToEndTests.cross(a.d.port, 3, step: &step)
        #expect(
            WebhookEndToEndTests.wait(10) {
                receiver.delivered("cfg").count == 6 && receiver.delivered("late").count == 6
            })
        let inner = try await a.http.get("/api/v1/webhooks/internal", admin)
        #expect(
            (inner.json["last_error"] as? String)?.contains(
                "127.0.0.1, which is loopback (127.0.0.0/8): refused (allow_private = true permits it)"
            )
                == true, "\(inner.body)")
        #expect((inner.json["pending"] as? Int ?? 0) == 3)
        #expect(!receiver.requests.contains { $0.webhook == "internal" })

        // SIGHUP: the file's set replaces the file's set; the API's stay.
        let configPath = a.d.dir.appendingPathComponent("fleetd.toml").path
        let original = try String(contentsOfFile: configPath, encoding: .utf8)
        try original.replacingOccurrences(of: entry("cfg"), with: entry("cfg2"))
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        kill(a.d.process.processIdentifier, SIGHUP)
        let names = {
            Set(try a.d.fleetctl("webhooks").compactMap { $0["name"] as? String })
        }
        #expect(
            try WebhookEndToEndTests.wait(10) {
                try names() == ["cfg2", "late", "made", "internal"]
            })
        try WebhookEndToEndTests.cross(a.d.port, 3, step: &step)
        #expect(WebhookEndToEndTests.wait(10) { receiver.delivered("cfg2").count == 3 })
        // An entry that cannot be read: refused with its name and key, the old set kept.
        try original.replacingOccurrences(of: entry("cfg"), with: entry("cfg3", file: "/nowhere"))
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        kill(a.d.process.processIdentifier, SIGHUP)
        #expect(
            WebhookEndToEndTests.wait(10) {
                a.d.log.contains(
                    "webhooks not reloaded, keeping the old ones: \(configPath):")
                    && a.d.log.contains("webhooks.secret_file: /nowhere not found (webhook cfg3)")
            }, "\(a.d.log.suffix(2000))")
        #expect(try names() == ["cfg2", "late", "made", "internal"])

        let del = try await a.http.send(.DELETE, "/api/v1/webhooks/internal", headers: admin)
        #expect(del.status == 200 && del.json["deleted"] as? Bool == true)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/webhooks/internal", headers: admin).status
                == 404)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/webhooks/cfg2", headers: admin).status == 409)
        let audit = try a.d.fleetctl("audit").compactMap { $0["action"] as? String }
        #expect(audit.contains("webhook.put") && audit.contains("webhook.delete"))
        #expect(a.d.stop() == 0)
        receiver.stop()
    }
}

/// `http.webhooks_allow_private` (off by default): an API admin cannot make
/// a subscription that may reach loopback, private or metadata addresses.
@Suite(.offPool) struct WebhookPrivateAddressEndToEndTests {
    @Test func anAPIAdminCannotOpenPrivateAddressesByDefault() async throws {
        let a = try APIEndToEndTests.APIDaemon()
        let headers = a.auth("admin") + [("Content-Type", "application/json")]
        let refused = try await a.http.send(
            .PUT, "/api/v1/webhooks/meta", headers: headers,
            body: #"{"url":"http://[64:ff9b::a9fe:a9fe]/","allow_private":true}"#)
        #expect(refused.status == 422, "\(refused.body)")
        let problems = refused.json["problems"] as? [String] ?? []
        #expect(
            problems.contains {
                $0.hasPrefix("allow_private:") && $0.contains("http.webhooks_allow_private")
            },
            "\(problems)")
        #expect(try await a.http.get("/api/v1/webhooks/meta", a.auth("admin")).status == 404)
        // Without it the subscription is made, and the address rule still holds.
        let made = try await a.http.send(
            .PUT, "/api/v1/webhooks/meta", headers: headers,
            body: #"{"url":"http://[64:ff9b::a9fe:a9fe]/"}"#)
        #expect(made.status == 201)
    }
}
