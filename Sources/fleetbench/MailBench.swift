import ArgumentParser
import FleetModel
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

/// `fleetbench mail`: how fast fleetd mails a backlog of alerts through a
/// mail server on loopback (the end-to-end tests' aiosmtpd, with STARTTLS
/// and AUTH, logging each message). fleetd first starts once with the
/// rule on an empty database (the rule's cursor at 0), stops; `--alerts`
/// alerts are written; fleetd starts again and the clock runs until every
/// alert is in a mail the server took. One rule mails each alert (a
/// session each), another gathers them into digests.
struct MailBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail", abstract: "Alerts mailed per second, one mail each and in digests.")

    @Option(help: "The fleetd binary.") var fleetd: String
    @Option(help: "The mail server script (Tests/EndToEndTests/Mail/smtp_server.py).")
    var server: String
    @Option(help: "A python3 with the aiosmtpd package.") var python = "python3"
    @Option(help: "Alerts in the backlog.") var alerts = 5000
    @Option(help: "Sittings per rule (the median is reported).") var runs = 3

    func run() throws {
        for (label, digest) in [("one mail per alert", 0), ("digests of 1 s", 1)] {
            var rates: [(mails: Double, alerts: Double)] = []
            for _ in 0..<runs {
                rates.append(try sitting(digestS: digest))
                say(
                    String(
                        format: "%@: %.0f mails/s, %.0f alerts/s", label, rates.last!.mails,
                        rates.last!.alerts))
            }
            let m = rates.map(\.mails).sorted()
            let a = rates.map(\.alerts).sorted()
            say(
                String(
                    format:
                        "%@: median %.0f mails/s, %.0f alerts/s mailed (%d sittings, %.0f–%.0f mails/s)",
                    label, m[m.count / 2], a[a.count / 2], runs, m.first!, m.last!))
        }
    }

    private func sitting(digestS: Int) throws -> (mails: Double, alerts: Double) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mail = try BenchMailServer(python: python, script: server, dir: dir)
        defer { mail.stop() }
        let config = mail.config(digestS: digestS)
        // The rule's cursor stored at 0 on an empty database.
        do {
            let first = try BenchDaemon(fleetd: fleetd, dir: dir, fences: "", extraConfig: config)
            Thread.sleep(forTimeInterval: 1.5)
            first.stop()
        }
        let store = try WebhookBench.backlog(alerts, in: dir)
        store.stopUpkeep()
        let daemon = try BenchDaemon(fleetd: fleetd, dir: dir, fences: "", extraConfig: config)
        defer { daemon.stop() }
        let start = Date()
        let reader = try SQLiteReader(path: daemon.database)
        var sent: [MailRecord] = []
        while Date().timeIntervalSince(start) < 300 {
            sent = try reader.mails(statuses: [.sent], limit: 1_000_000)
            if sent.reduce(0, { $0 + $1.alertIds.count }) >= alerts { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let took = Date().timeIntervalSince(start)
        let mailed = sent.reduce(0) { $0 + $1.alertIds.count }
        guard mailed >= alerts else {
            throw BenchFailure("\(mailed) of \(alerts) alerts mailed in 300 s")
        }
        return (Double(sent.count) / took, Double(alerts) / took)
    }
}

/// The end-to-end tests' mail server for a benchmark: a certificate made
/// with openssl, STARTTLS and AUTH required.
final class BenchMailServer {
    let process = Process()
    let port: Int
    let dir: URL

    init(python: String, script: String, dir: URL) throws {
        self.dir = dir
        let key = dir.appendingPathComponent("key.pem").path
        let cert = dir.appendingPathComponent("cert.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days",
            "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try openssl.run()
        openssl.waitUntilExit()
        try "bench\n".write(
            to: dir.appendingPathComponent("password"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            script, cert, key, "fleet", "bench", dir.appendingPathComponent("received.jsonl").path,
            dir.appendingPathComponent("control.json").path,
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        guard
            let line = String(
                data: out.fileHandleForReading.availableData, encoding: .utf8),
            let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw BenchFailure("the mail server did not start (python3 with aiosmtpd?)")
        }
        self.port = port
    }

    func config(digestS: Int) -> String {
        """
        [smtp]
        host = "127.0.0.1"
        port = \(port)
        from = "fleetd@bench.test"
        username = "fleet"
        password_file = "\(dir.appendingPathComponent("password").path)"
        ca_file = "\(dir.appendingPathComponent("cert.pem").path)"
        [[notifications]]
        name = "bench"
        to = ["ops@bench.test"]
        digest_s = \(digestS)
        """
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
