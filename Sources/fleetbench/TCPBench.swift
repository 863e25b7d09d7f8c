import ArgumentParser
import FleetModel
import FleetProtocols
import FleetSimCore
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `fleetbench tcp`: the TCP door under a fleet of connected devices. A
/// real fleetd with its Teltonika TCP door on loopback; `--connections`
/// devices connect (from `--sources` loopback addresses), hand over their
/// IMEI and then each report every `--interval` seconds, one record, and
/// every `--burst-every`th report `--burst` buffered records at once, each
/// frame waiting for its answer before the next, as the devices do. Prints
/// fleetd's memory per connection, the held phase's fixes/s and answer
/// latency, then a ladder of offered rates (the same connections
/// reporting faster) with the highest one sustained: every frame answered
/// within the step plus 2 s.
struct TCPBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tcp",
        abstract: "The TCP door: many device connections, memory per connection, answered rate.")

    @Option(help: "The fleetd binary.")
    var fleetd: String

    @Option(help: "The fences file fleetd loads (GeoJSON); empty for none.")
    var fences = ""

    @Option(help: "Start points for the devices (id,lon,lat CSV).")
    var points: String?

    @Option(help: "Device connections.")
    var connections = 10_000

    @Option(help: "Loopback source addresses the devices connect from (127.0.0.2, …).")
    var sources = 8

    @Option(help: "Seconds between a device's reports in the held phase.")
    var interval = 10.0

    @Option(help: "Every this many reports, one carries --burst buffered records.")
    var burstEvery = 10

    @Option(help: "Records in a burst.")
    var burst = 10

    @Option(help: "Seconds of the held phase.")
    var seconds = 30.0

    @Option(help: "Offered fixes/s of the ladder's steps (one record a frame), rising.")
    var rate: [Double] = []

    @Option(help: "Seconds per ladder step.")
    var stepSeconds = 6.0

    @Option(
        name: .customLong("set"),
        help: "A fleetd setting for the run, SECTION.KEY=VALUE; repeatable.")
    var settings: [String] = []

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let limits = [
            "tcp.max_connections=\(connections + 1000)",
            "tcp.max_connections_per_address=\(connections)",
            "tcp.handshake_timeout_s=120",
        ]
        let daemon = try BenchDaemon(
            fleetd: fleetd, dir: dir, fences: fences, settings: limits + settings)
        defer { daemon.stop() }
        guard let port = daemon.ports[TrackerProtocol.teltonikaTCP.key] else {
            throw ValidationError("fleetd reported no teltonika_tcp port")
        }
        let starts = try points.map(LoadPoints.load) ?? LoadPoints.workloadSquare(count: 100_000)
        let rssBefore = daemon.rssKiB()
        let fleet = TCPFleet(
            count: connections, port: port, sources: sources, starts: starts,
            startMs: WallClock.system.nowMs() - 86_400_000)
        defer { fleet.close() }
        let t0 = Date()
        let connected = fleet.connect()
        let connectS = Date().timeIntervalSince(t0)
        Thread.sleep(forTimeInterval: 2)
        let rssAfter = daemon.rssKiB()
        say(
            String(
                format:
                    "connections: %d of %d connected and accepted in %.1f s%@; fleetd RSS %.0f MB before, %.0f MB after: %.1f KiB per connection",
                connected, connections, connectS,
                fleet.failure.map { " (then: \($0))" } ?? "", Double(rssBefore) / 1024,
                Double(rssAfter) / 1024,
                connected > 0 ? Double(rssAfter - rssBefore) / Double(connected) : 0))
        guard connected > 0 else { return }
        let held = fleet.run(
            seconds: seconds, interval: interval, burstEvery: burstEvery, burst: burst)
        say(
            String(
                format:
                    "held: %d devices reporting every %.0f s (every %dth report %d records): %.0f fixes/s answered, answer p50 %.1f ms, p99 %.1f ms; %d of %d frames answered",
                connected, interval, burstEvery, burst, held.fixesPerS, held.p(50), held.p(99),
                held.answered, held.sent))
        say(
            "step\toffered_fixes_s\tanswered_fixes_s\tframes_sent\tanswered\tp50_ms\tp99_ms\tfleetd_cpu_%\tgenerator_cpu_%"
        )
        var best = 0.0
        for r in rate {
            daemon.waitIdle()
            let (cpu0, own0) = (daemon.cpuSeconds(), Self.ownCPUSeconds())
            let step = fleet.run(
                seconds: stepSeconds, interval: Double(connected) / r, burstEvery: 0, burst: 1)
            let span = stepSeconds + 2
            let cpu = (daemon.cpuSeconds() - cpu0) / span * 100
            let own = (Self.ownCPUSeconds() - own0) / span * 100
            // Sustained: every frame answered, and the fixes offered taken at
            // (nearly) the rate offered, not merged into ever larger frames.
            let sustained =
                step.answered == step.sent && step.sent > 0 && step.fixesPerS >= 0.95 * r
            say(
                String(
                    format: "%@\t%.0f\t%.0f\t%d\t%d\t%.1f\t%.1f\t%.0f\t%.0f",
                    sustained ? "ok" : "NOT",
                    r, step.fixesPerS, step.sent, step.answered, step.p(50), step.p(99), cpu, own))
            if sustained { best = r } else { break }
        }
        if !rate.isEmpty {
            say(
                String(
                    format:
                        "highest sustained over TCP: %.0f fixes/s (%d connections, 1 record a frame)",
                    best, connected))
        }
        say("fleetd peak RSS: \(daemon.peakRSSKiB() / 1024) MB (VmHWM)")
    }

    /// CPU time this process (the generator) has used, user + system, seconds.
    static func ownCPUSeconds() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
            + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
}

/// The simulated devices' connections, on one event loop of their own.
final class TCPFleet: Sendable {
    /// What one run measured.
    struct Result {
        var sent = 0
        var answered = 0
        var fixes = 0
        var seconds = 0.0
        var latenciesMs: [Double] = []
        var fixesPerS: Double { seconds > 0 ? Double(fixes) / seconds : 0 }
        func p(_ q: Double) -> Double {
            guard !latenciesMs.isEmpty else { return 0 }
            let sorted = latenciesMs.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q / 100))]
        }
    }

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let count: Int
    let port: Int
    let sources: Int
    let starts: [(lat: Double, lon: Double)]
    let startMs: Int64
    private let channels = Mutex<[any Channel]>([])
    let stats = Mutex(Result())
    private let failureText = Mutex<String?>(nil)

    var failure: String? { failureText.withLock { $0 } }

    init(count: Int, port: Int, sources: Int, starts: [(lat: Double, lon: Double)], startMs: Int64)
    {
        self.count = count
        self.port = port
        self.sources = max(1, sources)
        self.starts = starts
        self.startMs = startMs
    }

    static func imei(_ k: Int) -> String { String(350_000_000_000_000 + k) }

    /// Connects every device (1 000 at a time) and waits for its handshake
    /// answers; how many were accepted (the first failure is `failure`).
    func connect() -> Int {
        var accepted = 0
        var k = 0
        while k < count {
            let batch = k..<min(k + 1000, count)
            var futures: [EventLoopFuture<Bool>] = []
            for i in batch {
                let handler = TCPDevice(index: i, fleet: self)
                let promise = group.next().makePromise(of: Bool.self)
                handler.accepted = promise
                let source = "127.0.0.\(2 + i % sources)"
                let bootstrap = ClientBootstrap(group: group)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                do {
                    let local = try SocketAddress(ipAddress: source, port: 0)
                    let connected = bootstrap.bind(to: local).connect(host: "127.0.0.1", port: port)
                    connected.whenSuccess { c in self.channels.withLock { $0.append(c) } }
                    connected.whenFailure { promise.fail($0) }
                    futures.append(promise.futureResult)
                } catch {
                    promise.fail(error)
                    futures.append(promise.futureResult)
                }
            }
            for f in futures {
                do {
                    if try f.wait() { accepted += 1 }
                } catch {
                    failureText.withLock { if $0 == nil { $0 = "\(error)" } }
                }
            }
            if accepted < batch.upperBound { break }  // the machine's limit: stop here
            k = batch.upperBound
        }
        return accepted
    }

    /// Every connected device reports every `interval` s (first at a random
    /// phase) for `seconds`, then 2 s more for the last answers.
    func run(seconds: Double, interval: Double, burstEvery: Int, burst: Int) -> Result {
        stats.withLock { $0 = Result() }
        let list = channels.withLock { $0 }
        let until = NIODeadline.now() + .milliseconds(Int64(seconds * 1000))
        for c in list {
            let phase = Double.random(in: 0..<interval)
            _ = c.pipeline.handler(type: TCPDevice.self).map { device in
                device.report(
                    every: interval, until: until, burstEvery: burstEvery, burst: burst,
                    after: phase)
            }
        }
        Thread.sleep(forTimeInterval: seconds + 2)
        var r = stats.withLock { $0 }
        r.seconds = seconds
        return r
    }

    func close() {
        for c in channels.withLock({ $0 }) { c.close(promise: nil) }
        try? group.syncShutdownGracefully()
    }
}

/// One simulated Teltonika device on its TCP connection: handshake, then
/// one frame at a time, each waiting for its record count.
final class TCPDevice: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let index: Int
    let fleet: TCPFleet
    var accepted: EventLoopPromise<Bool>?
    private var context: ChannelHandlerContext?
    private var record = 0
    private var reports = 0
    private var inFlight: (at: NIODeadline, fixes: Int)?
    private var owed = 0
    private var received: [UInt8] = []

    init(index: Int, fleet: TCPFleet) {
        self.index = index
        self.fleet = fleet
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        let hello = TeltonikaEncoder.handshake(imei: TCPFleet.imei(index))
        context.writeAndFlush(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: hello)), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        accepted?.succeed(false)
        accepted = nil
        self.context = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        accepted?.fail(error)
        accepted = nil
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        if let a = accepted, !received.isEmpty {
            a.succeed(received.removeFirst() == 1)
            accepted = nil
        }
        while received.count >= 4, let flight = inFlight {
            received.removeFirst(4)
            let ms = Double((NIODeadline.now() - flight.at).nanoseconds) / 1e6
            fleet.stats.withLock {
                $0.answered += 1
                $0.fixes += flight.fixes
                $0.latenciesMs.append(ms)
            }
            inFlight = nil
            if owed > 0 {
                let n = owed
                owed = 0
                send(n)
            }
        }
    }

    /// Reports every `every` s until `until`, first after `after` s.
    func report(every: Double, until: NIODeadline, burstEvery: Int, burst: Int, after: Double) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(after * 1e9))) {
            let me = bound.value
            guard NIODeadline.now() < until, me.context != nil else { return }
            me.reports += 1
            let n = burstEvery > 0 && me.reports % burstEvery == 0 ? burst : 1
            if me.inFlight == nil { me.send(n) } else { me.owed += n }  // buffered, as devices do
            me.report(
                every: every, until: until, burstEvery: burstEvery, burst: burst, after: every)
        }
    }

    private func send(_ n: Int) {
        guard let context else { return }
        let start = fleet.starts[index % fleet.starts.count]
        let records = (0..<min(n, 255)).map { j in
            var r = TeltonikaEncoder.Record(
                time: fleet.startMs + Int64(record + j) * 1000,
                lat: start.lat + Double((record + j) % 50) * 1e-5, lon: start.lon)
            r.speedKmh = 30
            return r
        }
        record += records.count
        inFlight = (NIODeadline.now(), records.count)
        fleet.stats.withLock { $0.sent += 1 }
        let frame = TeltonikaEncoder.tcp(records: records)
        context.writeAndFlush(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: frame)), promise: nil)
    }
}
