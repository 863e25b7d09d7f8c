import FleetTestSupport
import Foundation
import Testing

/// The console in a real browser: Debian's chromium, driven through
/// chromedriver by selenium (`Browser/console_check.py`; `make setup-test`
/// installs all three). fleetd replays the bundled routes (retimed to end
/// now) into the bundled fences; the script logs in as a manager would,
/// sees the vehicles, clicks one, watches an alert arrive within 1 s of its
/// commit, acknowledges it, opens a trip and plays it back, runs and
/// downloads the usage report, uploads a bad fences file, and checks each
/// screenshot for what must be on it. Screenshots are kept in
/// `.build/console-screenshots` (the README's is `console-live.png`).
@Suite(.offPool) struct ConsoleEndToEndTests {
    static var python: String {
        Binaries.packageRoot.appendingPathComponent(".build/pytools/bin/python").path
    }

    @Test func aManagerUsesTheConsoleInARealBrowser() async throws {
        for tool in [Self.python, "/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: run `make setup-test`")
            return
        }
        let fencesFile = Binaries.packageRoot.appendingPathComponent("config/geofences.geojson")
        // A mail server, so that the Mail view can make rules.
        guard let mail = try MailServer.started() else { return }
        defer { mail.stop() }
        let d = try DaemonProcess(
            fences: try String(contentsOf: fencesFile, encoding: .utf8),
            extraConfig: mail.config()
                + "\n[[maintenance]]\nname = \"service\"\nevery_km = 15000\nevery_days = 365",
            trip: "", http: "127.0.0.1:0", listenExtra: "teltonika_tcp = \"127.0.0.1:0\"",
            httpExtra: "stream_alerts_per_s = 100")
        let ctl = try Binaries.path("fleetctl")
        for (user, role) in [("manager", "admin"), ("watcher", "viewer"), ("westie", "viewer")] {
            let r = try runTool(
                ctl,
                ["users", "add", user, "--role", role, "--password-stdin", "--db", d.database]
                    + (user == "westie" ? ["--group", "West"] : []),
                stdin: "password-\(user)\n")
            #expect(r.status == 0, "users add: \(r.err)")
        }
        let routes = ["t01_munich_car_1hz.csv", "t02_visnjan_car.gpx", "t03_limerick_bus304.gpx"]
            .map { Binaries.packageRoot.appendingPathComponent("Simulator/routes/\($0)").path }
        let replay = try await runToolOffPool(
            try Binaries.path("fleetsim"),
            ["replay", "--retime", "--speedup", "0", "--target", "127.0.0.1:\(d.port)"] + routes,
            timeout: 120)
        #expect(replay.status == 0 && replay.out.contains("3442 acknowledged"), "\(replay.out)")
        let out = Binaries.packageRoot.appendingPathComponent(".build/console-screenshots")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // The browser's minutes on a thread of their own, not on the suite's pool.
        let run = try await runToolOffPool(
            Self.python,
            [
                Binaries.packageRoot.appendingPathComponent(
                    "Tests/EndToEndTests/Browser/console_check.py"
                ).path,
                "--url", "http://127.0.0.1:\(d.ports["http"] ?? 0)/", "--udp", "\(d.port)",
                "--teltonika-tcp", "\(d.ports["teltonika_tcp"] ?? 0)",
                "--fences", fencesFile.path, "--user", "manager", "--password", "password-manager",
                "--viewer", "watcher", "--viewer-password", "password-watcher",
                "--group-user", "westie", "--group-password", "password-westie", "--out", out.path,
            ], timeout: 300,
            // The browser's profile and sockets in the run's folder, not
            // left in /tmp when it is killed.
            environment: ProcessInfo.processInfo.environment.merging([
                "TMPDIR": TestScratch.root.path
            ]) { $1 })
        print(run.out)
        #expect(run.status == 0, "the console check failed:\n\(run.out)\n\(run.err.suffix(3000))")
        #expect(run.out.contains("ok: a viewer: no acknowledging, no upload"))
        #expect(run.out.contains("ok: a user limited to the group West"))
        #expect(run.out.contains("ok: mail: an admin makes a rule for an address and a user"))
        for shot in [
            "console-login", "console-fleet", "console-live", "console-history",
            "console-report", "console-fences", "console-command", "console-maintenance",
            "console-group", "console-group-user", "console-people", "console-mail",
            "console-mail-user",
        ] {
            #expect(
                FileManager.default.fileExists(
                    atPath: out.appendingPathComponent("\(shot).png").path),
                "no \(shot).png")
        }
        #expect(d.stop() == 0)
    }
}
