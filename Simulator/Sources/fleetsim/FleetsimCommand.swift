import ArgumentParser
import FleetModel
import FleetSimCore
import Foundation

/// `fleetsim`: plays vehicles against fleetd.
@main
struct FleetsimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetsim", abstract: "Simulate vehicles sending fixes to fleetd.",
        subcommands: [
            ReplayCommand.self, LoadCommand.self, FleetCommand.self, ScoreCommand.self,
        ])
}

/// `fleetsim replay FILE...`: each route file is one vehicle.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract:
            "Replay CSV (lat,lon,time[,speed_mps]) and GPX routes as vehicles over UDP (JSON format), or as phones over HTTP (OsmAnd)."
    )

    @Argument(help: "Route files (.csv or .gpx). Each is one vehicle named after the file.")
    var files: [String]

    @Option(
        name: .long,
        help: "fleetd's listen address for the protocol, host:port (UDP for json, TCP for osmand).")
    var target = "127.0.0.1:5055"

    @Option(
        name: .long,
        help:
            "json: trackers over UDP; osmand: phones running Traccar Client (one HTTP request per position, kept until answered 200)."
    )
    var proto = "json"

    @Option(
        name: .long, help: "Playback speed: 1 = real time, 0 = as fast as acknowledgements allow.")
    var speedup = 100.0

    @Option(name: .long, help: "Resend a fix not acknowledged after this many milliseconds.")
    var resendMs = 500

    @Option(name: .long, help: "Give up on a fix after this many sends.")
    var attempts = 20

    @Option(name: .long, help: "Fixes per datagram when several are due at once.")
    var perDatagram = 1

    @Flag(
        name: .long,
        help:
            "One datagram in flight per vehicle, resent whole until acknowledged (fixes arrive in order, as from a tracker)."
    )
    var ordered = false

    @Option(name: .long, help: "Prefix for device ids (the file name follows).")
    var devicePrefix = ""

    @Flag(
        name: .long,
        help:
            "Shift each route's times so it ends when the replay starts (gaps and speeds unchanged)."
    )
    var retime = false

    func validate() throws {
        guard proto == "json" || proto == "osmand" else {
            throw ValidationError("--proto must be json or osmand, found \"\(proto)\"")
        }
        guard speedup >= 0 else { throw ValidationError("--speedup must be 0 or more") }
        guard resendMs > 0, attempts > 0, perDatagram > 0 else {
            throw ValidationError("--resend-ms, --attempts and --per-datagram must be positive")
        }
    }

    func run() throws {
        let address = try Target(target)
        let (host, port) = (address.host, address.port)
        var routes: [Route] = []
        for f in files {
            do {
                var r = try RouteFile.load(f)
                r.device = devicePrefix + r.device
                if retime, let last = r.points.last?.time {
                    let shift = WallClock.system.nowMs() - last
                    for i in r.points.indices { r.points[i].time += shift }
                }
                routes.append(r)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        var options = ReplayOptions()
        options.speedup = speedup
        options.resendAfterMs = resendMs
        options.maxAttempts = attempts
        options.perDatagram = perDatagram
        options.ordered = ordered
        let span =
            routes.map { Double(($0.points.last?.time ?? 0) - ($0.points.first?.time ?? 0)) / 1000 }
            .max() ?? 0
        print(
            "fleetsim: replaying \(routes.count) vehicles (\(routes.reduce(0) { $0 + $1.points.count }) fixes) to \(target) (\(proto))"
                + (speedup > 0
                    ? String(format: " at %.0fx, about %.0f s", speedup, span / speedup)
                    : " as fast as possible"))
        let report =
            proto == "osmand"
            ? OsmAndReplayer(host: host, port: port, routes: routes, options: options).run()
            : Replayer(
                client: try UDPClient(host: host, port: port), routes: routes, options: options
            )
            .run()
        for d in report.devices {
            var line = "  \(d.device): \(d.points) points, sent \(d.sent), acknowledged \(d.acked)"
            if d.resent > 0 { line += ", resent \(d.resent)" }
            if !d.rejected.isEmpty {
                line +=
                    ", rejected "
                    + d.rejected.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            if d.unacked > 0 { line += ", NOT ACKNOWLEDGED \(d.unacked)" }
            print(line)
        }
        print(
            String(
                format:
                    "fleetsim: sent %d fixes, %d acknowledged, %d rejected, %d resends, %d unacknowledged, in %.1f s",
                report.sent, report.acked, report.rejected, report.resent, report.unacked,
                report.elapsedSeconds))
        if report.unacked > 0 { throw ExitCode(3) }
    }
}
