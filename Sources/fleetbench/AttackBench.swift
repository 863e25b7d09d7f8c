import ArgumentParser
import FleetSimCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `fleetbench attack`: what the hostile clients of the security page cost
/// the service. A real `fleetd` (the standard fences and devices) is
/// offered `--rate` Teltonika datagrams a second while `--clients` API
/// clients poll it; the run is made first with no attack (the baseline),
/// then once while each attack runs at the strength the security tests
/// use. Each run reports the ingest (sustained or not, ack p99) and the
/// API's p99 beside the baseline's; the target is both within 20 %.
///
/// The attacks, each from loopback addresses of its own:
/// - `logins`: 200 threads guessing the admin's password at once, each
///   again 0.1 s after its answer (401 or 429);
/// - `trickle`: 2 000 connections from 8 addresses, each sending a request
///   head a byte a second (held up to `http.max_connections_per_address`
///   each, cut at `http.request_timeout_s`, and opened again);
/// - `reflection`: `--reflection-rate` datagrams a second to the JSON door,
///   each 1 984 broken 9-byte lines (`{"seq":1`).
struct AttackBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attack",
        abstract: "Ingest and API latency while the security page's attacks run.")

    @Option(help: "The fleetd binary (fleetctl is taken from beside it).")
    var fleetd: String

    @Option(help: "The fences file fleetd loads (GeoJSON); empty for none.")
    var fences = ""

    @Option(help: "Start points for the devices (id,lon,lat CSV).")
    var points: String?

    @Option(help: "Offered Teltonika datagrams (one fix each) per second while measuring.")
    var rate = 10_000.0

    @Option(help: "Seconds of each run.")
    var seconds = 15.0

    @Option(help: "Devices.")
    var devices = 100_000

    @Option(help: "API clients, each with one connection.")
    var clients = 50

    @Option(help: "Seconds between one client's requests.")
    var interval = 0.5

    @Option(help: "Datagrams a second of the reflection attack (1 984 broken lines each).")
    var reflectionRate = 100

    @Option(help: "The attacks to run, in order (logins, trickle, reflection).")
    var attack: [String] = ["logins", "trickle", "reflection"]

    @Option(help: "A fleetd setting for the run, SECTION.KEY=VALUE; repeatable.")
    var set: [String] = []

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try BenchDaemon(fleetd: fleetd, dir: dir, fences: fences, settings: set)
        defer { daemon.stop() }
        guard let udp = daemon.ports["teltonika"], let http = daemon.ports["http"],
            let json = daemon.ports["json"]
        else {
            throw ValidationError("fleetd reported no teltonika, json or http port")
        }
        let token = try daemon.viewerToken(fleetd: fleetd)
        _ = try BenchDaemon.fleetctl(
            fleetd,
            [
                "users", "add", "admin", "--role", "admin", "--password-stdin", "--db",
                daemon.database,
            ],
            stdin: "the-right-password-\(UUID().uuidString)\n")
        let generator = try BenchDaemon.warmTeltonikaLoad(
            port: udp, devices: devices, seconds: seconds, points: points)
        say("warm-up: \(devices) devices, one fix each")
        say("run\tingest\tack_p99_ms\tapi_requests\tapi_p99_ms\tapi_not_200\tattack")

        /// One measured run: ingest and API clients for `seconds`.
        func measure(_ name: String, _ attackSummary: () -> String) -> (ack: Double, api: Double) {
            daemon.waitIdle()
            let apiClients = APIClients(
                port: http, token: token, clients: clients, intervalS: interval, devices: devices,
                ident: { String(350_000_000_000_000 + $0) }, latest: LatestAlert())
            nonisolated(unsafe) var api = APIClients.Report()
            let apiDone = DispatchSemaphore(value: 0)
            Thread {
                api = apiClients.run(seconds: seconds)
                apiDone.signal()
            }.start()
            let r = generator.run(rate: rate)
            apiDone.wait()
            let notOK = api.statuses.values.reduce(0, +) + api.failures
            let apiP99 = Double(LoopbackHTTP.percentile(api.latenciesMs, 99))
            say(
                String(
                    format: "%@\t%@\t%.1f\t%d\t%.1f\t%d\t%@", name,
                    r.sustained ? "sustained" : "NOT sustained", r.latency(99),
                    api.latenciesMs.count, apiP99, notOK, attackSummary()))
            return (r.sustained ? r.latency(99) : .infinity, apiP99)
        }

        let base = measure("none") { "-" }
        for name in attack {
            let running = Atomic<Bool>(true)
            let count = Atomic<Int>(0)
            let threads: [Thread]
            switch name {
            case "logins":
                threads = (0..<200).map { k in
                    Thread {
                        while running.load(ordering: .relaxed) {
                            Self.login(port: http, source: "127.0.1.\(k % 250 + 1)")
                            count.add(1, ordering: .relaxed)
                            Thread.sleep(forTimeInterval: 0.1)
                        }
                    }
                }
            case "trickle":
                threads = (0..<8).map { k in
                    Thread {
                        Self.trickle(
                            port: http, source: "127.0.2.\(k + 1)", connections: 250,
                            running: running, opened: count)
                    }
                }
            case "reflection":
                threads = [
                    Thread {
                        Self.reflect(
                            port: json, source: "127.0.3.1", perSecond: reflectionRate,
                            running: running,
                            sent: count)
                    }
                ]
            default:
                throw ValidationError("--attack \(name): logins, trickle or reflection")
            }
            for t in threads { t.start() }
            Thread.sleep(forTimeInterval: 2)  // the attack at full strength first
            let got = measure(name) {
                "\(count.load(ordering: .relaxed)) \(name == "trickle" ? "connections opened" : name == "logins" ? "guesses" : "datagrams")"
            }
            running.store(false, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 3)  // the attack's threads see it and end
            say(
                String(
                    format: "%@: ack p99 %.2f× the baseline's, API p99 %.2f× (target: both ≤ 1.20)",
                    name, got.ack / max(base.ack, 0.001), got.api / max(base.api, 0.001)))
        }
        say("fleetd peak RSS: \(daemon.peakRSSKiB() / 1024) MB (VmHWM)")
    }

    /// One wrong login for `admin` from `source`, its answer read and dropped.
    static func login(port: Int, source: String) {
        let fd = LoopbackTCP.connect(from: source, to: port, receiveTimeoutS: 5)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let body = #"{"user":"admin","password":"a-wrong-guess"}"#
        let request =
            "POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var chunk = [UInt8](repeating: 0, count: 1024)
        while recv(fd, &chunk, chunk.count, 0) > 0 {}
    }

    /// Keeps `connections` connections from `source` trickling a request
    /// head, a byte each a second; one the server closed is opened again.
    static func trickle(
        port: Int, source: String, connections: Int, running: borrowing Atomic<Bool>,
        opened: borrowing Atomic<Int>
    ) {
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        while running.load(ordering: .relaxed) {
            fds.removeAll { fd in
                var byte: UInt8 = 0
                let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
                let closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                if closed { close(fd) }
                return closed
            }
            while fds.count < connections {
                let fd = LoopbackTCP.connect(from: source, to: port, receiveTimeoutS: 5)
                guard fd >= 0 else { break }
                fds.append(fd)
                opened.add(1, ordering: .relaxed)
                _ = "GET /healthz HTTP/1.1\r\n".withCString {
                    send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL))
                }
            }
            for fd in fds { _ = "X".withCString { send(fd, $0, 1, Int32(MSG_NOSIGNAL)) } }
            Thread.sleep(forTimeInterval: 1)
        }
    }

    /// `perSecond` datagrams of 1 984 broken lines each to the JSON door
    /// from `source`, until `running` is false.
    static func reflect(
        port: Int, source: String, perSecond: Int, running: borrowing Atomic<Bool>,
        sent: borrowing Atomic<Int>
    ) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        let datagram = Array(
            Array(repeating: #"{"seq":1"#, count: 1984).joined(separator: "\n").utf8)
        let start = Date()
        var n = 0
        while running.load(ordering: .relaxed) {
            let due = Int(Date().timeIntervalSince(start) * Double(perSecond))
            while n < due {
                _ = datagram.withUnsafeBytes { b in
                    withUnsafePointer(to: &remote) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, b.baseAddress, b.count, 0, $0, size)
                        }
                    }
                }
                n += 1
            }
            sent.store(n, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
