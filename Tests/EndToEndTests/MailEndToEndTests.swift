import FleetTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A mail server on loopback (`Mail/smtp_server.py`, PyPI's aiosmtpd):
/// STARTTLS and AUTH required, a certificate of its own made with
/// openssl, every message it takes logged before its 250.
final class MailServer {
    let dir: URL
    let user = "fleet"
    let password = "s3cret-\(UUID().uuidString.prefix(6))"
    private(set) var port = 0
    private var process: Process?
    var logPath: String { dir.appendingPathComponent("received.jsonl").path }
    var controlPath: String { dir.appendingPathComponent("control.json").path }
    var certPath: String { dir.appendingPathComponent("cert.pem").path }
    var passwordPath: String { dir.appendingPathComponent("password").path }

    static var script: String {
        Binaries.packageRoot.appendingPathComponent("Tests/EndToEndTests/Mail/smtp_server.py").path
    }

    /// A server in a folder of its own; nil (recorded) without `make setup-test`'s Python.
    static func started() throws -> MailServer? {
        guard FileManager.default.isExecutableFile(atPath: WebhookReceiver.python) else {
            Issue.record("\(WebhookReceiver.python) is missing: run `make setup-test`")
            return nil
        }
        return try MailServer(
            dir: TestScratch.root.appendingPathComponent(
                "fleetd-mail-\(UUID().uuidString.prefix(8))"))
    }

    init(dir: URL) throws {
        self.dir = dir
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let key = dir.appendingPathComponent("key.pem").path
        let cert = try runTool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certPath,
                "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        guard cert.status == 0 else { throw E2EError("openssl: \(cert.err)") }
        try (password + "\n").write(toFile: passwordPath, atomically: true, encoding: .utf8)
        control([:])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WebhookReceiver.python)
        p.arguments = [Self.script, certPath, key, user, password, logPath, controlPath]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        guard let got = Int(out.fileHandleForReading.availableLine(timeout: 10) ?? "") else {
            p.terminate()
            throw E2EError("the mail server did not start")
        }
        port = got
        process = p
    }

    func stop() {
        if let p = process {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        process = nil
        try? FileManager.default.removeItem(at: dir)
    }

    func control(_ settings: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: settings)
        try! data.write(to: URL(fileURLWithPath: controlPath + ".tmp"))
        rename(controlPath + ".tmp", controlPath)
    }

    /// `[smtp]` for fleetd to reach this server.
    func config(timeoutS: Double = 2) -> String {
        """
        [smtp]
        host = "127.0.0.1"
        port = \(port)
        from = "fleetd@fleet.test"
        username = "\(user)"
        password_file = "\(passwordPath)"
        ca_file = "\(certPath)"
        timeout_s = \(timeoutS)
        console_url = "https://fleet.example.com"
        helo_name = "fleetd.test"
        """
    }

    /// Every message taken so far, in order.
    func received() -> [ReceivedMail] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard
                let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return nil }
            return ReceivedMail(o)
        }
    }
}

/// One message as the server logged it, its parts decoded.
struct ReceivedMail {
    var rcptTos: [String]
    var auth: Bool
    var tls: Bool
    var headers: [String: String]
    var text: String
    var html: String
    /// The first attachment: its file name and decoded text.
    var attachment: (name: String, text: String)?

    init?(_ o: [String: Any]) {
        guard let data = o["data"] as? String else { return nil }
        rcptTos = o["rcpt_tos"] as? [String] ?? []
        auth = o["auth"] as? Bool ?? false
        tls = o["tls"] as? Bool ?? false
        let lines = data.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        headers = [:]
        var last = ""
        for l in lines {
            if l.isEmpty { break }
            if l.hasPrefix(" ") {
                headers[last, default: ""] += l
                continue
            }
            if let colon = l.firstIndex(of: ":") {
                last = String(l[..<colon]).lowercased()
                headers[last] = String(l[l.index(after: colon)...]).trimmingCharacters(
                    in: .whitespaces)
            }
        }
        /// The decoded body of the part whose header line starts with `header`.
        func part(_ header: String) -> String? {
            guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return nil }
            var i = start
            while i < lines.count, !lines[i].isEmpty { i += 1 }
            var b64 = ""
            i += 1
            while i < lines.count, !lines[i].hasPrefix("--"), !lines[i].isEmpty {
                b64 += lines[i]
                i += 1
            }
            return Data(base64Encoded: b64).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        text = part("Content-Type: text/plain") ?? ""
        html = part("Content-Type: text/html") ?? ""
        let disposition = "Content-Disposition: attachment; filename=\""
        if let k = lines.firstIndex(where: { $0.hasPrefix(disposition) }),
            let body = part(disposition)
        {
            attachment = (String(lines[k].dropFirst(disposition.count).prefix { $0 != "\"" }), body)
        }
    }

    /// The alert ids the text lists (`[alert N]`).
    var alertIds: [Int] {
        text.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "[alert ") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
    }
}

/// Notifications by mail end to end: fleetd, a real SMTP server with
/// STARTTLS and AUTH, alerts from fixes sent over UDP.
@Suite(.serialized, .offPool) struct MailEndToEndTests {
    static func rules(_ server: MailServer) -> String {
        """
        \(server.config())
        [[notifications]]
        name = "each"
        to = ["ops@fleet.test", "nobody@refused.test"]
        types = ["geofence_enter", "geofence_exit"]
        [[notifications]]
        name = "digest"
        to = ["boss@fleet.test"]
        digest_s = 3
        time_zone = "Europe/Berlin"
        """
    }

    @Test func everyAlertIsMailedOnceThroughRetriesAndAKill() throws {
        guard let server = try MailServer.started() else { return }
        defer { server.stop() }
        server.control(["fail": 1])  // the first message is answered 451
        var d = try DaemonProcess(
            fences: depotFences, extraConfig: Self.rules(server),
            tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0")
        var step = 0
        try WebhookEndToEndTests.cross(d.port, 9, step: &step)
        func mailed(_ rule: String) -> [Int: Set<String>] {
            var out: [Int: Set<String>] = [:]
            for m in server.received()
            where m.headers["to"]?.contains(rule == "each" ? "ops@" : "boss@") == true {
                for id in m.alertIds { out[id, default: []].insert(m.headers["message-id"] ?? "") }
            }
            return out
        }
        func alerts(_ types: Set<String>?) throws -> Set<Int> {
            Set(
                try d.fleetctl("alerts").filter {
                    types?.contains($0["type"] as? String ?? "") ?? true
                }
                .compactMap { $0["id"] as? Int })
        }
        let fences: Set = ["geofence_enter", "geofence_exit"]
        var want = try alerts(fences)
        #expect(!want.isEmpty)
        #expect(
            WebhookEndToEndTests.wait(30) { Set(mailed("each").keys) == want },
            "each: missing \(want.subtracting(mailed("each").keys).sorted())")

        // Killed while the server holds a message it has logged (delay_s):
        // the mail is sent again after the lease, with the same Message-ID.
        server.control(["delay_s": 3])
        let before = server.received().count
        try WebhookEndToEndTests.cross(d.port, 3, step: &step)
        #expect(WebhookEndToEndTests.wait(15) { server.received().count > before })
        d.crash()
        server.control([:])
        d = try DaemonProcess(
            fences: depotFences, extraConfig: Self.rules(server), dir: d.dir,
            tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0")
        defer { _ = d.stop() }
        try WebhookEndToEndTests.cross(d.port, 3, step: &step)
        want = try alerts(fences)
        let all = try alerts(nil)
        #expect(
            WebhookEndToEndTests.wait(60) {
                Set(mailed("each").keys) == want && Set(mailed("digest").keys) == all
            },
            "each: missing \(want.subtracting(mailed("each").keys).sorted()); digest: missing \(all.subtracting(mailed("digest").keys).sorted())"
        )
        // The mail the kill cut off is sent again once its lease ends (10 s).
        var rows: [[String: Any]] = []
        #expect(
            try WebhookEndToEndTests.wait(30) {
                rows = try d.fleetctl("notifications")
                return !rows.isEmpty && rows.allSatisfy { $0["status"] as? String == "sent" }
            }, "\(rows)")
        // Each alert in one mail of each rule: the repeat has the same Message-ID.
        let ids = server.received().compactMap { $0.headers["message-id"] }
        #expect(Set(ids).count < ids.count, "no mail was sent twice: was the kill too late?")
        for (id, ids) in mailed("each") { #expect(ids.count == 1, "alert \(id): \(ids)") }
        for (id, ids) in mailed("digest") { #expect(ids.count == 1, "alert \(id): \(ids)") }
        let mails = server.received()
        #expect(mails.allSatisfy { $0.tls && $0.auth })
        #expect(mails.allSatisfy { !$0.rcptTos.contains("nobody@refused.test") })
        // What a person reads.
        let one = try #require(mails.first { $0.headers["to"]?.contains("ops@") == true })
        #expect(one.headers["subject"]?.hasPrefix("[fleetd] truck-") == true, "\(one.headers)")
        #expect(one.text.contains("entered") || one.text.contains("left"), "\(one.text)")
        #expect(one.text.contains("https://fleet.example.com/console/"))
        #expect(one.html.contains("<table"))
        let digest = try #require(mails.first { $0.headers["to"]?.contains("boss@") == true })
        #expect(digest.headers["subject"]?.contains("alerts for") == true, "\(digest.headers)")
        #expect(digest.text.contains(" +01:00 "), "\(digest.text)")  // Berlin in November
        #expect(digest.alertIds.count > 1)
        // fleetctl notifications: all sent, the 451 counted, the refused recipient named.
        #expect(rows.contains { ($0["attempts"] as? Int ?? 0) >= 2 })
        #expect(
            rows.contains {
                $0["rule"] as? String == "each"
                    && ($0["last_error"] as? String)?.contains("nobody@refused.test: 550") == true
            }, "\(rows)")
        let log = (try? String(contentsOfFile: d.stderrPath, encoding: .utf8)) ?? ""
        #expect(!log.contains(server.password))
    }

    /// Scheduled reports: one mailed now with fleetctl; after downtime the
    /// daemon mails each missed period once, and a restart mails none again.
    @Test func scheduledReportsAreMailedOncePerPeriodAcrossRestarts() throws {
        guard let server = try MailServer.started() else { return }
        defer { server.stop() }
        let config = """
            \(server.config())
            [[reports]]
            name = "daily-usage"
            kind = "usage"
            every = "day"
            at = "00:00"
            time_zone = "Europe/Berlin"
            to = ["manager@fleet.test"]
            [[reports]]
            name = "daily-stops"
            kind = "stops"
            every = "day"
            at = "00:00"
            to = ["manager@fleet.test"]
            devices = ["truck-1"]
            """
        let tracking = "exit_confirm_fixes = 1\njump_speed_kmh = 0"
        var d = try DaemonProcess(fences: depotFences, extraConfig: config, tracking: tracking)
        var step = 0
        try WebhookEndToEndTests.cross(d.port, 6, step: &step)
        // On demand: the day of the test fixes (14 November 2023 in Berlin).
        let fleetctl = try Binaries.path("fleetctl")
        let run = try runTool(
            fleetctl,
            [
                "reports", "run", "daily-usage", "--config", d.configPath, "--for",
                "2023-11-14T22:00:00Z",
            ])
        #expect(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("report daily-usage for 2023-11-14 sent to manager@fleet.test: 250"),
            "\(run.out)")
        let usage = try #require(server.received().last)
        #expect(usage.headers["subject"] == "[fleetd] Usage report daily-usage: 2023-11-14")
        #expect(usage.text.contains("3 vehicles:"), "\(usage.text)")
        #expect(usage.attachment?.name == "daily-usage-2023-11-14.csv")
        #expect(
            usage.attachment?.text.contains("truck-0") == true, "\(usage.attachment?.text ?? "")")
        let bad = try runTool(fleetctl, ["reports", "run", "weekly", "--config", d.configPath])
        #expect(bad.status != 0)
        #expect(bad.err.contains("no report \"weekly\""), "\(bad.err)")

        // Nothing due yet: the first period is the one under way.
        Thread.sleep(forTimeInterval: 1)
        #expect(server.received().count == 1)
        #expect(d.stop() == 0)
        // Three days of downtime: each report's cursor moved back three days.
        let moved = try runTool(
            WebhookReceiver.python,
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE mail_rules SET cursor = cursor - 3*86400000 WHERE name LIKE 'report:%'\"); c.commit(); print(c.total_changes)",
                d.database,
            ])
        #expect(moved.out.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(moved.err)")
        d = try DaemonProcess(
            fences: depotFences, extraConfig: config, dir: d.dir, tracking: tracking)
        func scheduled() -> [ReceivedMail] { Array(server.received().dropFirst()) }
        #expect(WebhookEndToEndTests.wait(30) { scheduled().count >= 6 })
        #expect(d.stop() == 0)
        d = try DaemonProcess(
            fences: depotFences, extraConfig: config, dir: d.dir, tracking: tracking)
        defer { _ = d.stop() }
        Thread.sleep(forTimeInterval: 3)
        let mails = scheduled()
        #expect(mails.count == 6, "\(mails.map { $0.headers["subject"] ?? "" })")
        let subjects = Set(mails.compactMap { $0.headers["subject"] })
        #expect(subjects.count == 6)
        #expect(subjects.filter { $0.hasPrefix("[fleetd] Stops report daily-stops: ") }.count == 3)
        #expect(mails.allSatisfy { $0.attachment?.name.hasSuffix(".csv") == true })
        let rows = try d.fleetctl("notifications")
        #expect(rows.filter { $0["report"] as? String == "daily-usage" }.count == 3, "\(rows)")
    }

    @Test func checkConfigSaysWhatTheServerOffersAndNamesAWrongPassword() throws {
        guard let server = try MailServer.started() else { return }
        defer { server.stop() }
        let d = try DaemonProcess(fences: nil, extraConfig: Self.rules(server))
        defer { _ = d.stop() }
        let ok = try runTool(try Binaries.path("fleetd"), ["--check-config", d.configPath])
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("smtp: offers: SIZE"), "\(ok.out)")
        #expect(ok.out.contains("STARTTLS: the connection is encrypted"), "\(ok.out)")
        #expect(ok.out.contains("logged in as fleet"), "\(ok.out)")
        try "wrong\n".write(toFile: server.passwordPath, atomically: true, encoding: .utf8)
        let bad = try runTool(try Binaries.path("fleetd"), ["--check-config", d.configPath])
        #expect(bad.status == 2)
        #expect(bad.err.contains("535"), "\(bad.err)")
        #expect(!bad.err.contains("wrong"))
        // A server without STARTTLS is not sent anything: a plain port refuses.
        let text = try String(contentsOfFile: d.configPath, encoding: .utf8)
        try text.replacingOccurrences(of: "port = \(server.port)", with: "port = 1")
            .write(toFile: d.configPath, atomically: true, encoding: .utf8)
        let down = try runTool(try Binaries.path("fleetd"), ["--check-config", d.configPath])
        #expect(down.status == 2)
        #expect(down.err.contains("cannot connect to 127.0.0.1:1"), "\(down.err)")
    }
}
