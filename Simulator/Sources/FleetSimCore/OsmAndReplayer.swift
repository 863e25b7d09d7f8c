import Foundation
import Synchronization

/// Replays routes as phones running Traccar Client would report them in
/// the OsmAnd protocol: one HTTP request per position (query style, speed
/// in knots), one connection and one request at a time per phone, a
/// position kept until the server answers 200 (that means committed) and
/// sent again after `resendAfterMs` otherwise. A 4xx answer is a refusal:
/// the app drops the position (counted as rejected, by status).
public final class OsmAndReplayer: Sendable {
    private let host: String
    private let port: Int
    private let routes: [Route]
    private let options: ReplayOptions

    public init(host: String, port: Int, routes: [Route], options: ReplayOptions) {
        self.host = host
        self.port = port
        self.routes = routes
        self.options = options
    }

    /// The request target for one position (`protocols.md` §3).
    public static func target(device: String, point p: RoutePoint) -> String {
        var q = "/?id=\(device)&timestamp=\(p.time / 1000)&lat=\(p.lat)&lon=\(p.lon)"
        if let v = p.speedMps { q += "&speed=\(v / 0.514444)" }
        if let a = p.altM { q += "&altitude=\(a)" }
        return q
    }

    /// Plays every route (one thread per phone) and returns when each has
    /// had every position answered or given up on.
    public func run() -> ReplayReport {
        let start = Date()
        let devices = Mutex(
            routes.map { ReplayReport.Device(device: $0.device, points: $0.points.count) })
        let group = DispatchGroup()
        for (r, route) in routes.enumerated() {
            group.enter()
            let thread = Thread { [self] in
                let d = play(route, start: start)
                devices.withLock { $0[r] = d }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        return ReplayReport(
            devices: devices.withLock { $0 }, elapsedSeconds: Date().timeIntervalSince(start))
    }

    private func play(_ route: Route, start: Date) -> ReplayReport.Device {
        var d = ReplayReport.Device(device: route.device, points: route.points.count)
        let connection = HTTPConnection(host: host, port: port)
        let t0 = route.points.first?.time ?? 0
        for p in route.points {
            if options.speedup > 0 {
                let due = Double(p.time - t0) / options.speedup / 1000
                let wait = due - Date().timeIntervalSince(start)
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            }
            let target = Self.target(device: route.device, point: p)
            var attempt = 0
            while true {
                attempt += 1
                d.sent += attempt == 1 ? 1 : 0
                if attempt > 1 { d.resent += 1 }
                let answer = try? connection.exchange(
                    "POST", target, timeoutMs: Int32(max(options.resendAfterMs, 1000) * 4))
                if let a = answer, a.status == 200 {
                    d.acked += 1
                    break
                }
                if let a = answer, (400..<500).contains(a.status) {
                    d.rejected["http_\(a.status)", default: 0] += 1
                    break
                }
                if attempt >= options.maxAttempts {
                    d.unacked += 1
                    break
                }
                Thread.sleep(forTimeInterval: Double(options.resendAfterMs) / 1000)
            }
        }
        return d
    }
}
