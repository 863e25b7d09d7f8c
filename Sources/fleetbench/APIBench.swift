import ArgumentParser
import FleetSimCore
import Foundation

/// `fleetbench api`: the HTTP side under load while fleetd ingests. A real
/// `fleetd` (the standard fences and devices, every fix persisted and
/// acknowledged after commit) is offered `--rate` Teltonika datagrams a
/// second, first alone (the baseline), then again while `--clients` API
/// clients poll positions and alerts and `--streams` clients hold event
/// streams of alerts (no positions: a full position feed of 100 000
/// devices is tens of thousands of events a second per client):
/// `--firehose` of them take every alert, the others follow one fence each
/// (`fence=`, the standard workload's fence ids 0..<`--fence-ids`), as a
/// depot's or a region's dashboard does. Reports the API's latency and
/// request rate, the alerts' delivery latency on both kinds of stream, and
/// the ingest figures of both runs side by side.
struct APIBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "API and event-stream load on the real daemon while it ingests.")

    @Option(help: "The fleetd binary (fleetctl is taken from beside it).")
    var fleetd: String

    @Option(help: "The fences file fleetd loads (GeoJSON); empty for none.")
    var fences = ""

    @Option(help: "Start points for the devices (id,lon,lat CSV).")
    var points: String?

    @Option(help: "Offered Teltonika datagrams (one fix each) per second while measuring.")
    var rate = 30_000.0

    @Option(help: "Seconds of each run.")
    var seconds = 20.0

    @Option(help: "Devices.")
    var devices = 100_000

    @Option(help: "API clients, each with one connection.")
    var clients = 500

    @Option(help: "Seconds between one client's requests.")
    var interval = 1.0

    @Option(help: "Event-stream clients.")
    var streams = 500

    @Option(help: "How many of the streams take every alert (the others one fence's).")
    var firehose = 5

    @Option(help: "Fence ids of the fences file: 0..<N.")
    var fenceIds = 10_000

    @Option(
        help:
            "Put the devices in N groups (fleetctl devices group) and send the API clients' requests as a viewer limited to half of them, for that half's devices (0: a token that sees every device)."
    )
    var groups = 0

    @Flag(
        inversion: .prefixedNo,
        help:
            "With --groups: ask as the user limited to half the groups (else with the token that sees every device, over the same grouped devices)."
    )
    var groupedUser = true

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 500 API clients and 500 streams from one address, with one token:
        // configured as a deployment with that many dashboards would be
        // (the defaults allow 256 connections an address, 50 streams a user).
        let daemon = try BenchDaemon(
            fleetd: fleetd, dir: dir, fences: fences,
            settings: [
                "http.max_connections_per_address=\(clients + streams + 64)",
                "http.max_streams_per_user=\(streams + 10)",
            ])
        defer { daemon.stop() }
        guard let udp = daemon.ports["teltonika"], let http = daemon.ports["http"] else {
            throw ValidationError("fleetd reported no teltonika or http port")
        }
        let token = try daemon.viewerToken(fleetd: fleetd)
        let clock = SendClock(devices: devices)
        let generator = try BenchDaemon.warmTeltonikaLoad(
            port: udp, devices: devices, seconds: seconds, points: points, clock: clock)
        say("warm-up: \(devices) devices, one fix each")
        let base = 350_000_000_000_000
        // The API clients' credentials and devices: every device, or those of half the groups.
        var apiToken = token
        var apiDevices = devices
        var apiIdent: @Sendable (Int) -> String = { String(base + $0) }
        if groups > 0 {
            let half = max(groups / 2, 1)
            for g in 0..<groups {
                let file = dir.appendingPathComponent("group-\(g).txt")
                try stride(from: g, to: devices, by: groups).map { String(base + $0) }
                    .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
                _ = try BenchDaemon.fleetctl(
                    fleetd,
                    ["devices", "group", "g\(g)", "--ids-from", file.path, "--db", daemon.database])
            }
            _ = try BenchDaemon.fleetctl(
                fleetd,
                [
                    "users", "add", "grouped", "--role", "viewer", "--password-stdin", "--db",
                    daemon.database,
                ] + (0..<half).flatMap { ["--group", "g\($0)"] },
                stdin: "password-grouped\n")
            guard
                let cookie = LoopbackHTTP.login(
                    port: http, user: "grouped", password: "password-grouped")
            else { throw ValidationError("the grouped user could not log in") }
            if groupedUser { apiToken = cookie }
            let groupCount = groups
            apiDevices = (0..<devices).filter { $0 % groupCount < half }.count
            // The k-th device of the user's groups.
            apiIdent = { k in String(base + (k / half) * groupCount + k % half) }
            say(
                "groups: \(devices) devices in \(groups) groups; the API clients ask for \(half) of them (\(apiDevices) devices) "
                    + (groupedUser
                        ? "as a user limited to them" : "with a token that sees every device"))
        }

        // The baseline: ingest alone.
        daemon.waitIdle()
        let cpu0 = daemon.cpuSeconds()
        let alone = generator.run(rate: rate)
        let cpuAlone = daemon.cpuSeconds() - cpu0

        // Ingest with the API and the streams.
        daemon.waitIdle()
        let latest = LatestAlert()
        let index: @Sendable (Substring) -> Int? = { ident in Int(ident).map { $0 - base } }
        let all = min(firehose, streams)
        let wide = StreamClients(
            port: http, token: token,
            paths: Array(repeating: "/api/v1/events?positions=off", count: all), clock: clock,
            latest: latest, deviceIndex: index)
        let narrow = StreamClients(
            port: http, token: token,
            paths: (0..<(streams - all)).map {
                "/api/v1/events?positions=off&fence=\($0 * 7919 % max(fenceIds, 1))"
            }, clock: clock, latest: latest, deviceIndex: index)
        wide.start()
        narrow.start()
        let open = wide.waitConnected(timeoutS: 30) + narrow.waitConnected(timeoutS: 30)
        say("event streams open: \(open) of \(streams)")
        let apiClients = APIClients(
            port: http, token: apiToken, clients: clients, intervalS: interval,
            devices: apiDevices, ident: apiIdent, latest: latest)
        nonisolated(unsafe) var api = APIClients.Report()
        let apiDone = DispatchSemaphore(value: 0)
        Thread {
            api = apiClients.run(seconds: seconds)
            apiDone.signal()
        }.start()
        let cpu1 = daemon.cpuSeconds()
        let loaded = generator.run(rate: rate)
        apiDone.wait()
        let cpuLoaded = daemon.cpuSeconds() - cpu1
        Thread.sleep(forTimeInterval: 1)  // the last alerts reach the streams
        let w1 = wide.stop()
        let n1 = narrow.stop()

        say(
            String(
                format:
                    "ingest %.0f fixes/s alone: ack p50 %.1f ms, p99 %.1f ms; fleetd %.2f cores; %@",
                rate, alone.latency(50), alone.latency(99), cpuAlone / seconds,
                alone.sustained ? "sustained, nothing lost" : "NOT sustained"))
        say(
            String(
                format:
                    "ingest %.0f fixes/s with the API load: ack p50 %.1f ms, p99 %.1f ms; fleetd %.2f cores; %@",
                rate, loaded.latency(50), loaded.latency(99), cpuLoaded / seconds,
                loaded.sustained ? "sustained, nothing lost" : "NOT sustained"))
        let errors = api.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        say(
            String(
                format:
                    "API: %d clients, a request each every %.2f s: %d answered in %.1f s = %.0f requests/s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms; not 200: %@; connection failures: %d",
                clients, interval, api.latenciesMs.count, api.seconds,
                Double(api.latenciesMs.count) / max(api.seconds, 0.001),
                LoopbackHTTP.percentile(api.latenciesMs, 50),
                LoopbackHTTP.percentile(api.latenciesMs, 99),
                LoopbackHTTP.percentile(api.latenciesMs, 100),
                errors.isEmpty ? "none" : errors.joined(separator: ", "), api.failures))
        for (name, s) in [("every alert", w1), ("one fence each", n1)] {
            say(
                String(
                    format:
                        "streams (%@): %d open, %d refused, %d ended early; %d alerts, %d deliveries; send-to-client latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                    name, s.connected, s.refused, s.ended, s.distinctAlerts, s.deliveries,
                    LoopbackHTTP.percentile(s.latenciesMs, 50),
                    LoopbackHTTP.percentile(s.latenciesMs, 99),
                    LoopbackHTTP.percentile(s.latenciesMs, 100)))
        }
        say("fleetd peak RSS: \(daemon.peakRSSKiB() / 1024) MB (VmHWM)")
    }
}
