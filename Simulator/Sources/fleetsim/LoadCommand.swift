import ArgumentParser
import FleetProtocols
import FleetSimCore
import Foundation

/// `fleetsim load`: many devices at an offered rate, acknowledgements counted.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Offer load: N devices sending fixes at a rate, for a duration.",
        discussion: """
            Datagram k comes from device k mod N; each device starts at a point of \
            --points (id,lon,lat rows, as written by gen_workload.py; by default uniform \
            over the standard workload's 100 km square around 48.85 N 2.35 E) and drives \
            at 36 km/h. Unacknowledged datagrams are resent after --resend-ms, up to \
            --max-sends sends. Prints what was sent, acknowledged and resent, and the \
            acknowledgement latency percentiles (from the first send). Exit status 0 even \
            when fixes went unacknowledged: the figures say so.
            """)

    @Option(name: .long, help: "fleetd's listen address for the protocol, host:port.")
    var target = "127.0.0.1:5027"

    @Option(name: .long, help: "teltonika, json or nmea (NMEA is never acknowledged).")
    var proto = "teltonika"

    @Option(name: .long, help: "Devices played.")
    var devices = 100_000

    @Option(name: .long, help: "Fixes per datagram.")
    var perDatagram = 1

    @Option(name: .long, help: "Offered datagrams per second (first sends).")
    var rate = 10_000.0

    @Option(name: .long, help: "Seconds of offering.")
    var seconds = 10.0

    @Option(name: .long, help: "Resend a datagram not acknowledged after this many ms.")
    var resendMs = 2000

    @Option(name: .long, help: "Sends of one datagram at most, the first included.")
    var maxSends = 3

    @Option(name: .long, help: "Seconds to wait for outstanding acknowledgements after offering.")
    var drain = 5.0

    @Option(name: .long, help: "Start points, a CSV of id,lon,lat (header optional).")
    var points: String?

    @Option(
        name: .long,
        help:
            "First every device sends one fix at this rate (datagrams/s), acknowledged before the clock starts; 0 = no warm-up."
    )
    var warmupRate = 0.0

    @Flag(name: .long, help: "Print one TSV row (with --tsv-header, the header first).")
    var tsv = false

    @Flag(name: .long, help: "With --tsv: print the header row first.")
    var tsvHeader = false

    func validate() throws {
        guard let p = TrackerProtocol(rawValue: proto), LoadOptions.protocols.contains(p) else {
            throw ValidationError(
                "--proto must be \(TrackerProtocol.list(LoadOptions.protocols)), found \"\(proto)\""
            )
        }
        guard devices > 0, perDatagram > 0, rate > 0, seconds > 0, resendMs > 0, maxSends > 0
        else {
            throw ValidationError(
                "--devices, --per-datagram, --rate, --seconds, --resend-ms and --max-sends must be positive"
            )
        }
        guard perDatagram <= (proto == "teltonika" ? 255 : 200) else {
            throw ValidationError("--per-datagram must be at most 255 (Teltonika) or 200")
        }
    }

    func run() throws {
        let address = try Target(target)
        let (host, port) = (address.host, address.port)
        var options = LoadOptions()
        options.proto = TrackerProtocol(rawValue: proto)!
        options.devices = devices
        options.fixesPerDatagram = perDatagram
        options.rate = rate
        options.seconds = seconds
        options.resendAfterMs = resendMs
        options.maxSends = maxSends
        options.drainSeconds = drain
        let starts: [(lat: Double, lon: Double)]
        do {
            starts = try points.map(LoadPoints.load) ?? LoadPoints.workloadSquare(count: 100_000)
        } catch {
            throw ValidationError("--points: \(error)")
        }
        let client = try UDPClient(host: host, port: port, receiveBuffer: 16 << 20)
        let generator = LoadGenerator(client: client, options: options, points: starts)
        if warmupRate > 0 {
            let w = generator.warmUp(rate: warmupRate)
            if !tsv {
                print(
                    String(
                        format: "warm-up: %d devices, %d first fixes acknowledged in %.1f s",
                        devices, w.fixesAcked, w.ackSeconds))
            }
        }
        let report = generator.run()
        if tsv {
            if tsvHeader { print(LoadReport.tsvHeader) }
            print(report.tsv)
            return
        }
        print(
            String(
                format:
                    "fleetsim load: %@, %d devices, %d fixes/datagram, offered %.0f datagrams/s for %.1f s",
                proto, devices, perDatagram, rate, seconds))
        print(
            String(
                format: "  sent %d fixes (%.0f/s), acknowledged %d (%.0f/s), rejected %d",
                report.fixesSent, Double(report.fixesSent) / seconds, report.fixesAcked,
                Double(report.fixesAcked) / max(report.ackSeconds, seconds), report.fixesRejected))
        print(
            "  resent \(report.resentDatagrams) datagrams, \(report.fixesUnacked) fixes never acknowledged, \(report.duplicateReplies) duplicate replies, \(report.sendErrors) send errors"
        )
        if !report.latenciesMs.isEmpty {
            print(
                String(
                    format: "  ack latency ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f",
                    report.latency(50), report.latency(90), report.latency(99),
                    report.latency(100)))
        }
        print(
            report.sustained
                ? "  sustained: every fix acknowledged, nothing resent" : "  NOT sustained")
    }
}
