import FleetSimCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Many API clients on one thread: each keeps one connection and sends a
/// request every `intervalS` (its phase spread over the interval), the next
/// only once the answer to the last has come, alternating a device's newest
/// positions and the newest alerts, as dashboards poll. Latency is from
/// sending a request to the last byte of its answer.
final class APIClients: @unchecked Sendable {
    struct Report {
        var latenciesMs: [Float] = []
        /// Answers by status other than 200.
        var statuses: [Int: Int] = [:]
        /// Connections that failed or were closed.
        var failures = 0
        var seconds = 0.0
    }

    private let port: Int
    private let token: String
    private let clients: Int
    private let intervalS: Double
    private let devices: Int
    private let ident: (Int) -> String
    /// The newest alert id seen (by the stream clients), for `since`.
    private let latest: LatestAlert

    init(
        port: Int, token: String, clients: Int, intervalS: Double, devices: Int,
        ident: @escaping (Int) -> String, latest: LatestAlert
    ) {
        self.port = port
        self.token = token
        self.clients = clients
        self.intervalS = intervalS
        self.devices = devices
        self.ident = ident
        self.latest = latest
    }

    private struct Conn {
        var fd: Int32
        var due: UInt64
        var sentAt: UInt64 = 0
        var buffer: [UInt8] = []
        var n = 0
    }

    /// Runs for `seconds`, then closes every connection.
    func run(seconds: Double) -> Report {
        var report = Report()
        var rng = SplitMix64(seed: 7)
        let interval = UInt64(intervalS * 1e9)
        // Connected first, then phased over one interval from the start.
        var conns = (0..<clients).map { _ in Conn(fd: LoopbackHTTP.connect(port: port), due: 0) }
        let start = SendClock.now()
        let end = start + UInt64(seconds * 1e9)
        for i in conns.indices {
            conns[i].due = start + interval * UInt64(i) / UInt64(max(clients, 1))
        }
        func request(_ c: inout Conn, _ now: UInt64) {
            c.n += 1
            let path: String
            if c.n % 2 == 0 {
                let since = max(0, latest.id.load(ordering: .relaxed) - 50)
                path = "/api/v1/alerts?since=\(since)&limit=50"
            } else {
                let d = Int(rng.next() % UInt64(devices))
                path = "/api/v1/devices/\(ident(d))/positions?limit=20"
            }
            if LoopbackHTTP.send(c.fd, LoopbackHTTP.get(path, token: token)) {
                c.sentAt = now
            } else {
                fail(&c)
            }
        }
        func fail(_ c: inout Conn) {
            report.failures += 1
            if c.fd >= 0 { close(c.fd) }
            c.fd = LoopbackHTTP.connect(port: port)
            c.sentAt = 0
            c.buffer.removeAll()
        }
        var fds = [pollfd](repeating: pollfd(), count: conns.count)
        while true {
            let now = SendClock.now()
            if now >= end { break }
            var nextDue = now + 5_000_000
            for i in conns.indices {
                if conns[i].sentAt == 0 && conns[i].fd >= 0 {
                    if conns[i].due <= now {
                        request(&conns[i], now)
                        // Its own phase kept: a late answer skips a turn, never
                        // bunches the clients together.
                        conns[i].due += interval
                        while conns[i].due <= now { conns[i].due += interval }
                    }
                    nextDue = min(nextDue, conns[i].due)
                }
                fds[i] = pollfd(
                    fd: conns[i].sentAt != 0 ? conns[i].fd : -1, events: Int16(POLLIN), revents: 0)
            }
            let waitMs = Int32(max(0, min(5, (Int64(nextDue) - Int64(now)) / 1_000_000)))
            guard poll(&fds, nfds_t(fds.count), waitMs) > 0 else { continue }
            let got = SendClock.now()
            for i in conns.indices where fds[i].revents != 0 {
                guard let n = LoopbackHTTP.read(conns[i].fd, into: &conns[i].buffer) else {
                    continue
                }
                if n <= 0 {
                    fail(&conns[i])
                    continue
                }
                guard let headEnd = LoopbackHTTP.headEnd(conns[i].buffer) else { continue }
                let (status, headers) = LoopbackHTTP.parseHead(conns[i].buffer[..<headEnd])
                let length = Int(headers["content-length"] ?? "") ?? 0
                guard conns[i].buffer.count >= headEnd + length else { continue }
                report.latenciesMs.append(Float(Double(got - conns[i].sentAt) / 1e6))
                if status != 200 { report.statuses[status, default: 0] += 1 }
                conns[i].buffer.removeFirst(headEnd + length)
                conns[i].sentAt = 0
            }
        }
        for c in conns where c.fd >= 0 { close(c.fd) }
        report.seconds = Double(SendClock.now() - start) / 1e9
        report.latenciesMs.sort()
        return report
    }
}
