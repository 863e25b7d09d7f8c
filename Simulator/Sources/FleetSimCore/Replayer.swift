import FleetProtocols
import Foundation

/// Replays routes as vehicles over UDP in fleetd's JSON format, the way a
/// careful device does: every fix carries a `seq`, is kept until the daemon
/// acknowledges it, and is resent after a timeout.
public final class Replayer {
    private let client: UDPClient
    private let routes: [Route]
    private let options: ReplayOptions

    public init(client: UDPClient, routes: [Route], options: ReplayOptions) {
        self.client = client
        self.routes = routes
        self.options = options
    }

    private struct InFlight {
        var route: Int
        var point: Int
        var sentAt: Double
        var attempts: Int
    }

    /// Plays every route to the end and waits for the last acknowledgements.
    public func run() -> ReplayReport {
        if options.ordered { return runOrdered() }
        var report = ReplayReport(
            devices: routes.map { ReplayReport.Device(device: $0.device, points: $0.points.count) },
            elapsedSeconds: 0)
        // The merged schedule: (due ms after start, route, point).
        var schedule: [(due: Double, route: Int, point: Int)] = []
        for (r, route) in routes.enumerated() {
            let t0 = route.points.first?.time ?? 0
            for (i, p) in route.points.enumerated() {
                let due = options.speedup > 0 ? Double(p.time - t0) / options.speedup : 0
                schedule.append((due, r, i))
            }
        }
        schedule.sort { ($0.due, $0.route, $0.point) < ($1.due, $1.route, $1.point) }
        let start = Date()
        func now() -> Double { Date().timeIntervalSince(start) * 1000 }
        var next = 0
        var seq: Int64 = 0
        var pending: [Int64: InFlight] = [:]
        let resend = Double(options.resendAfterMs)

        while next < schedule.count || !pending.isEmpty {
            let t = now()
            // Send what is due, several fixes of one device per datagram when allowed.
            while next < schedule.count, schedule[next].due <= t, pending.count < options.window {
                let r = schedule[next].route
                var lines: [String] = []
                while next < schedule.count, schedule[next].route == r, schedule[next].due <= t,
                    lines.count < options.perDatagram, pending.count < options.window
                {
                    seq += 1
                    let p = schedule[next].point
                    lines.append(
                        FixEncoder.json(
                            device: routes[r].device, point: routes[r].points[p], seq: seq))
                    pending[seq] = InFlight(route: r, point: p, sentAt: t, attempts: 1)
                    report.devices[r].sent += 1
                    next += 1
                }
                client.send(Array(lines.joined(separator: "\n").utf8))
            }
            // Resend what waited too long; give up after the last attempt.
            for (s, f) in pending where t - f.sentAt >= resend {
                if f.attempts >= options.maxAttempts {
                    pending[s] = nil
                    report.devices[f.route].unacked += 1
                    continue
                }
                let p = routes[f.route].points[f.point]
                client.send(
                    Array(FixEncoder.json(device: routes[f.route].device, point: p, seq: s).utf8))
                pending[s]?.sentAt = t
                pending[s]?.attempts += 1
                report.devices[f.route].resent += 1
            }
            // Wait for replies until the next thing to do.
            var wait = 50.0
            if next < schedule.count, pending.count < options.window {
                wait = min(wait, schedule[next].due - t)
            }
            var reply = client.receive(timeoutMs: Int32(max(0, wait.rounded(.up))))
            while let bytes = reply {
                if let r = JSONReply.parse(bytes) {
                    for s in r.acked {
                        if let f = pending.removeValue(forKey: s) {
                            report.devices[f.route].acked += 1
                        }
                    }
                    for (s, reason) in r.rejected {
                        if let f = pending.removeValue(forKey: s) {
                            report.devices[f.route].rejected[reason.rawValue, default: 0] += 1
                        }
                    }
                }
                reply = client.receive(timeoutMs: 0)
            }
        }
        report.elapsedSeconds = Date().timeIntervalSince(start)
        return report
    }

    /// A vehicle's datagram in flight (`ordered`): its points, the first
    /// one's seq (the rest follow), when it was last sent, and how often.
    private struct Datagram {
        var seq: Int64
        var points: Range<Int>
        var sentAt: Double
        var attempts: Int
    }

    /// `ordered`: per vehicle, one datagram in flight, resent whole until acknowledged.
    private func runOrdered() -> ReplayReport {
        var report = ReplayReport(
            devices: routes.map { ReplayReport.Device(device: $0.device, points: $0.points.count) },
            elapsedSeconds: 0)
        let start = Date()
        func now() -> Double { Date().timeIntervalSince(start) * 1000 }
        func due(_ r: Int, _ i: Int) -> Double {
            guard options.speedup > 0, let t0 = routes[r].points.first?.time else { return 0 }
            return Double(routes[r].points[i].time - t0) / options.speedup
        }
        var next = [Int](repeating: 0, count: routes.count)
        var flight = [Datagram?](repeating: nil, count: routes.count)
        var seq: Int64 = 0
        func datagram(_ r: Int, _ f: Datagram) -> [UInt8] {
            let lines = f.points.enumerated().map { k, p in
                FixEncoder.json(
                    device: routes[r].device, point: routes[r].points[p], seq: f.seq + Int64(k))
            }
            return Array(lines.joined(separator: "\n").utf8)
        }
        func done() -> Bool {
            !flight.contains { $0 != nil }
                && !next.indices.contains { next[$0] < routes[$0].points.count }
        }
        while !done() {
            let t = now()
            var soonest = 50.0
            for r in routes.indices {
                if var f = flight[r] {
                    guard t - f.sentAt >= Double(options.resendAfterMs) else { continue }
                    if f.attempts >= options.maxAttempts {
                        report.devices[r].unacked += f.points.count
                        flight[r] = nil
                        continue
                    }
                    f.sentAt = t
                    f.attempts += 1
                    report.devices[r].resent += f.points.count
                    client.send(datagram(r, f))
                    flight[r] = f
                    continue
                }
                let first = next[r]
                guard first < routes[r].points.count else { continue }
                guard due(r, first) <= t else {
                    soonest = min(soonest, due(r, first) - t)
                    continue
                }
                var end = first + 1
                while end < routes[r].points.count, end - first < options.perDatagram,
                    due(r, end) <= t
                {
                    end += 1
                }
                let f = Datagram(seq: seq + 1, points: first..<end, sentAt: t, attempts: 1)
                seq += Int64(end - first)
                next[r] = end
                report.devices[r].sent += end - first
                client.send(datagram(r, f))
                flight[r] = f
            }
            var reply = client.receive(timeoutMs: Int32(max(0, soonest.rounded(.up))))
            while let bytes = reply {
                if let parsed = JSONReply.parse(bytes) {
                    let answered = Set(parsed.acked).union(parsed.rejected.map { $0.0 })
                    for r in routes.indices {
                        guard let f = flight[r] else { continue }
                        let seqs = f.seq..<(f.seq + Int64(f.points.count))
                        guard seqs.allSatisfy(answered.contains) else { continue }
                        report.devices[r].acked += parsed.acked.count { seqs.contains($0) }
                        for (s, reason) in parsed.rejected where seqs.contains(s) {
                            report.devices[r].rejected[reason.rawValue, default: 0] += 1
                        }
                        flight[r] = nil
                    }
                }
                reply = client.receive(timeoutMs: 0)
            }
        }
        report.elapsedSeconds = Date().timeIntervalSince(start)
        return report
    }
}
