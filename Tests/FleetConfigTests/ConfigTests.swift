import Foundation
import Testing

@testable import FleetConfig

@Suite struct ConfigTests {
    @Test func emptyTextGivesEveryDefault() throws {
        #expect(try DaemonConfig.parse("", file: "f") == DaemonConfig())
    }

    @Test func theShippedConfigIsTheDefaults() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/fleetd.toml")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(try DaemonConfig.parse(text, file: "fleetd.toml") == DaemonConfig())
        // Uncommenting every key must also give the defaults: the comments tell the truth.
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            line in
            Self.isCommentedKey(line) ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
        #expect(try DaemonConfig.parse(uncommented, file: "fleetd.toml") == DaemonConfig())
    }

    /// `# key = value` with a lowercase key: a commented-out setting, not prose.
    static func isCommentedKey(_ line: Substring) -> Bool {
        guard line.hasPrefix("# "), let eq = line.range(of: " = ") else { return false }
        let key = line[line.index(line.startIndex, offsetBy: 2)..<eq.lowerBound]
        return !key.isEmpty && key.allSatisfy { $0 == "_" || ($0.isASCII && $0.isLowercase) }
    }

    @Test func readsValues() throws {
        let c = try DaemonConfig.parse(
            """
            # comment
            [storage]
            database = "/tmp/x.db"   # trailing comment
            synchronous = "full"
            [engine]
            batch_max_fixes = 1_000
            [listen]
            json = "[::1]:6000"
            [screen]
            max_speed_kmh = 300
            [tracking]
            shallow_visit_s = 0
            """, file: "f")
        #expect(c.storage.database == "/tmp/x.db")
        #expect(c.storage.synchronous == .full)
        #expect(c.engine.batchMaxFixes == 1000)
        #expect(c.listen.addresses["json"] == ListenAddress(host: "::1", port: 6000))
        #expect(c.screen.maxSpeedKmh == 300)
        #expect(c.tracking.settings.shallowVisitS == 0)
        #expect(
            try DaemonConfig.parse("[listen]\njson = \"\"", file: "f").listen.addresses["json"]
                == nil)
    }

    @Test(arguments: [
        ("[storage]\ndatabse = \"x\"", "f:2: storage.databse: unknown key"),
        ("[storge]\n", "f:1: storge: unknown key"),
        (
            "[engine]\nbatch_max_fixes = \"10\"",
            "f:2: engine.batch_max_fixes: must be an integer, found a string"
        ),
        (
            "[engine]\nbatch_max_delay_ms = 60",
            "f:2: engine.batch_max_delay_ms: must be 0…50, found 60"
        ),
        ("[udp]\nreceiver_nice = -21", "f:2: udp.receiver_nice: must be -20…19, found -21"),
        (
            "[http]\nstream_positions_per_s = 99",
            "f:2: http.stream_positions_per_s: must be 100…10000000, found 99"
        ),
        (
            "[http]\nstream_alerts_per_s = 0",
            "f:2: http.stream_alerts_per_s: must be 100…10000000, found 0"
        ),
        (
            "[alerts]\njournal_per_s = 0",
            "f:2: alerts.journal_per_s: must be 1…1000000, found 0"
        ),
        (
            "[alerts]\njournal_backlog = 99",
            "f:2: alerts.journal_backlog: must be 100…1000000, found 99"
        ),
        (
            "[storage]\nbatch_max_fixes = 10",
            "f:2: storage.batch_max_fixes: has moved: set batch_max_fixes in [engine]"
        ),
        (
            "[storage]\n\nbatch_max_delay_ms = 2",
            "f:3: storage.batch_max_delay_ms: has moved: set batch_max_delay_ms in [engine]"
        ),
        ("[listen]\njson = \"localhost\"", "f:2: listen.json: \"localhost\" is not host:port"),
        ("[listen]\njson = \"h:70000\"", "f:2: listen.json: \"h:70000\": port must be 0…65535"),
        (
            "[storage]\nsynchronous = \"sometimes\"",
            "f:2: storage.synchronous: must be OFF, NORMAL, FULL or EXTRA, found \"sometimes\""
        ),
        ("[storage]\ndatabase = x", "f:2: \"x\" is not a valid value (strings need quotes)"),
        ("[storage]\ndatabase = \"a\"\ndatabase = \"b\"", "f:3: database: is defined twice"),
        ("[storage]\n[storage]", "f:2: table [storage] is defined twice"),
        (
            "[storage]\ndatabase = \"a\" junk",
            "f:2: unexpected \"j\" after the value (one key = value per line)"
        ),
        ("storage = 1", "f:1: storage: must be a table, found an integer"),
        (
            "[storage]\nbackend = \"mysql\"",
            "f:2: storage.backend: must be \"sqlite\" or \"postgresql\", found \"mysql\""
        ),
        (
            "[postgresql]\nurl = \"mysql://x\"",
            "f:2: postgresql.url: must be a postgres://USER@HOST:PORT/DATABASE URL"
        ),
        ("[postgresql]\npool_size = 0", "f:2: postgresql.pool_size: must be 1…64, found 0"),
        (
            "[tracking]\nshallow_visit_s = -1",
            "f:2: tracking.shallow_visit_s: must be 0.0…86400.0, found -1.0"
        ),
        (
            "[cluster]\nnode = \"a b\"",
            "f:2: cluster.node: must be at most 63 letters, digits, '-', '_' or '.', found \"a b\""
        ),
        ("[smtp]\nhost = \"mail\"", "f: smtp.from: is needed when host is set"),
        (
            "[smtp]\nhost = \"m\"\nfrom = \"a@b.c\"\ntls = \"ssl\"",
            "f:4: smtp.tls: must be \"starttls\", \"tls\" or \"off\", found \"ssl\""
        ),
        (
            "[smtp]\nhost = \"mail.example.com\"\nfrom = \"a@b.c\"\ntls = \"off\"\nusername = \"u\"\npassword_file = \"p\"",
            "f:4: smtp.tls: \"off\" with a username would send the password in the clear to mail.example.com: use \"starttls\" or \"tls\""
        ),
        (
            "[[notifications]]\nname = \"n\"\nto = [\"a@b.c\"]",
            "f: smtp.host: [[notifications]] need a mail server: set [smtp] host and from"
        ),
        (
            "[smtp]\nhost = \"m\"\nfrom = \"a@b.c\"\n[[notifications]]\nname = \"n\"\nto = [\"a@b.c\r\nBcc: x@y.z\"]",
            "f:6: notifications.to: \"a@b.c??Bcc: x@y.z\" is not an address (local@domain) (rule n)"
        ),
        (
            "[smtp]\nhost = \"m\"\nfrom = \"a@b.c\"\n[[notifications]]\nname = \"n\"\nto = [\"a@b.c\"]\ntypes = [\"enter\"]",
            "f:7: notifications.types: \"enter\" is not an alert type (geofence_enter, geofence_exit, overspeed_start, overspeed_end, trip_start, trip_end, device_silent, device_back, ignition_on, ignition_off, idle_start, idle_end, device_alarm, maintenance_due) (rule n)"
        ),
        (
            "[smtp]\nhost = \"m\"\nfrom = \"a@b.c\"\n[[notifications]]\nname = \"n\"\nto = [\"a@b.c\"]\nquiet_hours = \"22-6\"",
            "f:7: notifications.quiet_hours: \"22-6\" is not a span of local time like \"22:00-06:00\" (rule n)"
        ),
        (
            "[smtp]\nhost = \"m\"\nfrom = \"a@b.c\"\n[[notifications]]\nname = \"n\"\nto = [\"a@b.c\"]\ntime_zone = \"Mars/Olympus\"",
            "f:7: notifications.time_zone: \"Mars/Olympus\" is not an IANA time zone like \"Europe/Berlin\" (rule n)"
        ),
        (
            "[cluster]\nnode = \"n1\"",
            "f: cluster.node: nodes share a PostgreSQL database: set [storage] backend = \"postgresql\""
        ),
    ])
    func errorsNameFileLineAndKey(_ c: (String, String)) {
        #expect(throws: ConfigError.self) { try DaemonConfig.parse(c.0, file: "f") }
        do {
            _ = try DaemonConfig.parse(c.0, file: "f")
        } catch {
            #expect(error.description == c.1)
        }
    }

    @Test func tomlSubset() throws {
        let t = try TOMLParser.parse(
            """
            a.b = 'lit\\eral'
            "quoted key" = "esc \\u00e9\\t"
            arr = [1, 2.5,
                   "x", true]  # spans lines
            inline = { x = 1, y = -2 }
            [t.sub]
            n = 0x1F
            """, file: "f")
        #expect(
            t["a"]
                == .table(
                    {
                        var x = TOMLTable(); x.set("b", .string("lit\\eral"), line: 1); return x
                    }()))
        #expect(t["quoted key"] == .string("esc é\t"))
        #expect(t["arr"] == .array([.integer(1), .float(2.5), .string("x"), .bool(true)]))
        guard case .table(let tt)? = t["t"], case .table(let sub)? = tt["sub"] else {
            Issue.record("no [t.sub]")
            return
        }
        #expect(sub["n"] == .integer(31))
    }

    @Test func arraysOfTables() throws {
        let t = try TOMLParser.parse(
            """
            [[hooks]]
            name = "a"
            [hooks.headers]
            x = 1
            [[hooks]]
            name = "b"
            [hooks.headers]
            x = 2
            [other]
            k = true
            """, file: "f")
        guard case .array(let hooks)? = t["hooks"], hooks.count == 2,
            case .table(let a) = hooks[0], case .table(let b) = hooks[1]
        else {
            Issue.record("no [[hooks]] array: \(t)")
            return
        }
        #expect(a["name"] == .string("a") && b["name"] == .string("b"))
        guard case .table(let h)? = b["headers"] else {
            Issue.record("no headers in the second element")
            return
        }
        #expect(h["x"] == .integer(2))
        #expect(t["other"] != nil)
        #expect(throws: ConfigError.self) { try TOMLParser.parse("a = 1\n[[a]]", file: "f") }
        #expect(throws: ConfigError.self) { try TOMLParser.parse("[[a]\nx = 1", file: "f") }
    }
}

@Suite struct WebhookConfigTests {
    static let secret = "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()

    @Test func readsEveryKeyWithDefaults() throws {
        let c = try DaemonConfig.parse(
            """
            [[webhooks]]
            name = "dispatch"
            url = "https://dispatch.example/fleet-alerts"
            secret = "\(Self.secret)"
            types = ["geofence_exit", "overspeed_start"]
            [[webhooks]]
            name = "chat"
            url = "http://127.0.0.1:9000/"
            secret_file = "/nowhere/chat.secret"
            devices = ["truck-1"]
            fences = ["depot"]
            allow_private = true
            batch_max = 10
            timeout_s = 2.5
            max_age_h = 24
            since = 0
            """, file: "f")
        #expect(c.webhooks.count == 2)
        let d = c.webhooks[0].settings
        #expect(d.name == "dispatch" && d.types == ["geofence_exit", "overspeed_start"])
        #expect(d.batchMax == 100 && d.timeoutS == 10 && d.maxAgeH == 72 && !d.allowPrivate)
        #expect(d.origin == .config && c.webhooks[0].since == nil)
        let chat = c.webhooks[1]
        #expect(chat.secretFile == "/nowhere/chat.secret" && chat.since == 0)
        #expect(chat.settings.batchMax == 10 && chat.settings.timeoutS == 2.5)
        #expect(chat.settings.allowPrivate && chat.settings.devices == ["truck-1"])
        // The secret file is read when the daemon starts or reloads.
        #expect(throws: ConfigError.self) { try chat.subscription() }
        do {
            _ = try chat.subscription()
        } catch {
            #expect(
                error.description
                    == "f:9: webhooks.secret_file: /nowhere/chat.secret not found (webhook chat)")
        }
    }

    @Test func readsTheSecretFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetd-secret-\(UUID().uuidString)"
        ).path
        try (Self.secret + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let c = try DaemonConfig.parse(
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x.example/\"\nsecret_file = \"\(path)\"",
            file: "f")
        #expect(try c.webhooks[0].subscription().secret == Self.secret)
        try "whsec_short".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try c.webhooks[0].subscription() }
    }

    @Test(arguments: [
        (
            "[[webhooks]]\nname = \"a b\"",
            "f:2: webhooks.name: \"a b\" is not a webhook name (1–64 characters of [A-Za-z0-9_-])"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"",
            "f:2: webhooks.secret: give exactly one of secret and secret_file (webhook a)"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"gopher://x/\"\nsecret = \"\(secret)\"",
            "f:3: webhooks.url: must be an http:// or https:// URL, found gopher: (webhook a)"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"\nsecret = \"\(secret)\"\ntypes = [\"geofence_exit\", 3]",
            "f:5: webhooks.types: must be a list of strings, found an integer in it"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"\nsecret = \"\(secret)\"\nbatch_max = 0",
            "f:5: webhooks.batch_max: must be 1…1000, found 0"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"\nsecret = \"\(secret)\"\nretries = 3",
            "f:5: webhooks.retries: unknown key"
        ),
        (
            "[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"\nsecret = \"\(secret)\"\n[[webhooks]]\nname = \"a\"\nurl = \"https://x/\"\nsecret = \"\(secret)\"",
            "f:6: webhooks.name: webhook a is defined twice"
        ),
        (
            "webhooks = 1",
            "f:1: webhooks: must be an array of tables ([[webhooks]]), found an integer"
        ),
    ])
    func errorsNameTheWebhookAndKey(_ c: (String, String)) {
        do {
            _ = try DaemonConfig.parse(c.0, file: "f")
            Issue.record("accepted: \(c.0)")
        } catch {
            #expect(error.description == c.1)
        }
    }
}
