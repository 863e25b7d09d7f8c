import ArgumentParser
import FleetProtocols
import FleetSQLite
import FleetSimCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `fleetbench ingest`: the end-to-end benchmark. A real `fleetd` process
/// (with the fences given, every fix persisted, acknowledged after commit)
/// on loopback, offered rising rates by the load generator of `fleetsim
/// load`, one step after the other (each once the daemon is idle again). Reports per step what was sent and
/// acknowledged, the highest rate sustained (every fix acknowledged, nothing
/// resent), the acknowledgement latency at half that rate, and fleetd's peak
/// RSS. First every device sends one fix (the warm-up): the steps measure a
/// fleet fleetd already knows, not 100 000 devices appearing at once.
struct IngestBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "End-to-end ingest through the real daemon on loopback, at stepped offered rates."
    )

    @Option(help: "The fleetd binary.")
    var fleetd: String

    @Option(help: "The fences file fleetd loads (GeoJSON); empty for none.")
    var fences = ""

    @Option(help: "Start points for the devices (id,lon,lat CSV).")
    var points: String?

    @Option(help: "teltonika or json.")
    var proto = "teltonika"

    @Option(help: "Fixes per datagram.")
    var records = 1

    @Option(help: "Seconds of offering per step.")
    var seconds = 4.0

    @Option(help: "Offered datagrams per second, in rising order (one step each).")
    var rate: [Double] = [25_000, 50_000, 75_000, 100_000, 125_000, 150_000]

    @Option(help: "Devices.")
    var devices = 100_000

    @Option(
        help:
            "First every device sends one fix at this rate (datagrams/s), acknowledged before the step's clock starts; 0 = no warm-up."
    )
    var warmupRate = 20_000.0

    @Option(
        name: .customLong("set"),
        help:
            "A fleetd setting for the run, SECTION.KEY=VALUE (e.g. storage.synchronous=OFF); repeatable."
    )
    var settings: [String] = []

    @Flag(help: "Keep stepping after the first rate not sustained.")
    var allSteps = false

    @Option(help: "Webhook subscriptions of every alert, to a receiver started for the run.")
    var webhooks = 0

    @Option(help: "The webhook receiver script (with --webhooks).")
    var receiver = "Tests/EndToEndTests/Webhooks/receiver.py"

    @Option(help: "A python3 with the standardwebhooks package (with --webhooks).")
    var python = "python3"

    @Option(
        help:
            "Scrape GET /metrics every this many ms while offering (0: never), as a Prometheus would."
    )
    var scrapeMs = 0

    @Option(
        help:
            "A mail rule of every alert with this digest, seconds, to the mail tests' server started for the run (-1: none)."
    )
    var mailDigestS = -1

    @Option(help: "The mail server script (with --mail-digest-s; python3 with aiosmtpd).")
    var mailServer = "Tests/EndToEndTests/Mail/smtp_server.py"

    func run() throws {
        // NMEA is never acknowledged, so it has no acknowledgement latency to measure.
        let acknowledged = LoadOptions.protocols.filter { $0 != .nmea }
        guard let p = TrackerProtocol(rawValue: proto), acknowledged.contains(p) else {
            throw ValidationError(
                "--proto must be \(TrackerProtocol.list(acknowledged)), found \"\(proto)\"")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret =
            "whsec_"
            + Data((0..<32).map { _ in UInt8.random(in: 0...255) })
            .base64EncodedString()
        let hooks =
            webhooks > 0
            ? try BenchReceiver(python: python, script: receiver, secret: secret) : nil
        defer { hooks?.stop() }
        let mail =
            mailDigestS >= 0
            ? try BenchMailServer(python: python, script: mailServer, dir: dir) : nil
        defer { mail?.stop() }
        let daemon = try BenchDaemon(
            fleetd: fleetd, dir: dir, fences: fences, settings: settings,
            extraConfig: (hooks?.config(count: webhooks, secret: secret) ?? "") + "\n"
                + (mail?.config(digestS: mailDigestS) ?? ""))
        defer { daemon.stop() }
        guard let port = daemon.ports[proto] else {
            throw ValidationError("fleetd reported no \(proto) port")
        }
        var options = LoadOptions()
        options.proto = p
        options.devices = devices
        options.fixesPerDatagram = records
        options.seconds = seconds
        options.drainSeconds = 5
        let client = try UDPClient(host: "127.0.0.1", port: port, receiveBuffer: 16 << 20)
        let starts = try points.map(LoadPoints.load) ?? LoadPoints.workloadSquare(count: 100_000)
        let generator = LoadGenerator(client: client, options: options, points: starts)
        if warmupRate > 0 {
            let w = generator.warmUp(rate: warmupRate)
            guard w.fixesAcked == w.fixesSent else {
                throw ValidationError(
                    "warm-up: \(w.fixesAcked) of \(w.fixesSent) first fixes acknowledged; lower --warmup-rate"
                )
            }
            say(
                String(
                    format: "warm-up: %d devices, one fix each, acknowledged in %.1f s", devices,
                    w.ackSeconds))
        }
        let scraper =
            scrapeMs > 0 ? MetricsScraper(port: daemon.ports["http"] ?? 0, everyMs: scrapeMs) : nil
        defer { scraper?.stop() }
        say(LoadReport.tsvHeader)
        var best = 0.0
        for r in rate {
            daemon.waitIdle()
            let report = generator.run(rate: r)
            say(report.tsv)
            if report.sustained {
                best = r
            } else if !allSteps {
                break
            }
        }
        say(
            String(
                format:
                    "highest sustained: %.0f datagrams/s = %.0f fixes/s (%@, %d fixes/datagram)",
                best, best * Double(records), proto, records))
        if best > 0 {
            daemon.waitIdle()
            let half = generator.run(rate: best / 2)
            say(
                String(
                    format:
                        "at half that (%.0f datagrams/s): ack latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; %@",
                    best / 2, half.latency(50), half.latency(99), half.latency(100),
                    half.sustained ? "sustained" : "NOT sustained"))
        }
        say("fleetd peak RSS: \(daemon.peakRSSKiB() / 1024) MB (VmHWM)")
        if let scraper {
            let (n, bytes, failed) = scraper.stop()
            say(
                "metrics: \(n) scrapes of GET /metrics every \(scrapeMs) ms (\(bytes) bytes the last; \(failed) failed)"
            )
        }
        if let hooks {
            say(
                "webhooks: \(webhooks) subscriptions; \(hooks.alerts()) alerts delivered to the receiver"
            )
        }
        if mail != nil, let reader = try? SQLiteReader(path: daemon.database) {
            let mails = (try? reader.mails(statuses: [], limit: 10_000_000)) ?? []
            let sent = mails.filter { $0.status == .sent }
            let alertCount = (try? reader.lastAlertId()) ?? 0
            say(
                "mail: digest \(mailDigestS) s; \(sent.count) mails sent with \(sent.reduce(0) { $0 + $1.alertIds.count }) alerts, \(mails.count - sent.count) not yet, of \(alertCount) alerts raised"
            )
        }
    }
}

/// Prints a line and flushes it at once (the output is often a pipe or a file).
func say(_ line: String) {
    print(line)
    fflush(nil)
}
