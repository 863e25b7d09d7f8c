import ArgumentParser
import FleetProtocols
import FleetSimCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `fleetd` process for a benchmark step: its own database in `dir`, every
/// protocol and the HTTP API on a loopback port the kernel picks (read back from `READY=1`
/// through a notify socket of its own), errors-only logging.
final class BenchDaemon {
    let process = Process()
    private(set) var ports: [String: Int] = [:]
    private let notifyFD: Int32
    private let statusPath: String
    /// The database fleetd writes (for `fleetctl`).
    let database: String
    private var closed = false

    /// `settings`: extra `key = value` lines for fleetd's config, each under
    /// its section (`storage.synchronous=OFF`).
    /// `extraConfig`: more config text, appended (`[[webhooks]]` tables).
    /// The protocols the benchmarks drive: those over UDP and TCP, each on
    /// a port the kernel picks; the HTTP ones are off.
    static let udp = TrackerProtocol.carried(by: .udp)
    static var listen: String {
        TrackerProtocol.allCases.map { p in
            switch p.transport {
            case .udp: "\(p.key) = \"127.0.0.1:0\""
            case .http: "\(p.key) = \"\""
            case .tcp: "\(p.key) = \"127.0.0.1:0\""
            }
        }.joined(separator: "\n")
    }

    init(
        fleetd: String, dir: URL, fences: String, settings: [String] = [], extraConfig: String = ""
    ) throws {
        let notify = dir.appendingPathComponent("notify").path
        statusPath = dir.appendingPathComponent("bench.db.status.json").path
        database = dir.appendingPathComponent("bench.db").path
        // A daemon started before in the same folder left its socket file.
        unlink(notify)
        notifyFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in notify.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(notifyFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let config = dir.appendingPathComponent("fleetd.toml").path
        var sections: [String: [String]] = [:]
        for s in settings {
            guard let dot = s.firstIndex(of: "."), let eq = s.firstIndex(of: "="), dot < eq else {
                throw ValidationError("--set \(s): expected SECTION.KEY=VALUE")
            }
            let value = s[s.index(after: eq)...]
            let quoted =
                Double(value) != nil || value == "true" || value == "false"
                ? String(value) : "\"\(value)\""
            sections[String(s[..<dot]), default: []].append(
                "\(s[s.index(after: dot)..<eq]) = \(quoted)")
        }
        // The HTTP API on a port the kernel picks (a fixed one may be taken).
        if sections["http"]?.contains(where: { $0.hasPrefix("listen ") }) != true {
            sections["http", default: []].append("listen = \"127.0.0.1:0\"")
        }
        let extra = sections.filter { $0.key != "storage" }.map {
            "[\($0.key)]\n" + $0.value.joined(separator: "\n")
        }.joined(separator: "\n")
        try """
        [storage]
        database = "\(dir.path)/bench.db"
        \((sections["storage"] ?? []).joined(separator: "\n"))
        \(extra)
        [geofences]
        file = "\(fences)"
        [listen]
        \(Self.listen)
        [log]
        level = "error"
        \(extraConfig)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: fleetd)
        process.arguments = ["--config", config]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify
        process.environment = env
        try process.run()
        var buf = [UInt8](repeating: 0, count: 4096)
        var pfd = pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)
        while ports.isEmpty, poll(&pfd, 1, 60_000) > 0 {
            let n = buf.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress, $0.count, 0) }
            let msg = String(decoding: buf[0..<max(n, 0)], as: UTF8.self)
            guard msg.contains("READY=1") else { continue }
            for name in TrackerProtocol.allCases.map(\.rawValue) + ["http"] {
                if let r = msg.range(of: "\(name) 127.0.0.1:"),
                    let p = Int(msg[r.upperBound...].prefix { $0.isNumber })
                {
                    ports[name] = p
                }
            }
        }
        // Nobody reads the notify socket from now on: close it, or fleetd's
        // STATUS= messages would fill it and sd_notify would block its status timer.
        close(notifyFD)
        closed = true
        guard !ports.isEmpty else {
            stop()
            throw ValidationError("fleetd did not report ready in 60 s")
        }
    }

    /// Waits (up to 60 s) until the status file says nothing is queued,
    /// nothing was stored in the last second, and no device state waits for
    /// its checkpoint: the previous step is finished.
    func waitIdle() {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 1.1)
            guard let data = FileManager.default.contents(atPath: statusPath),
                let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            // Idle: nothing queued or arriving, and the device states the last
            // step changed written (the idle engine writes them, 1 024 per commit).
            if (o["queue_fixes"] as? Int) == 0 && (o["fixes_per_s"] as? Int) == 0
                && (o["states_unwritten"] as? Int ?? 0) == 0
            {
                return
            }
        }
    }

    /// Peak resident set size so far (VmHWM of /proc/PID/status), KiB.
    func peakRSSKiB() -> Int { status("VmHWM:") }

    /// Resident set size now (VmRSS of /proc/PID/status), KiB.
    func rssKiB() -> Int { status("VmRSS:") }

    /// A KiB figure of /proc/PID/status.
    private func status(_ key: String) -> Int {
        guard
            let status = try? String(
                contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// CPU time fleetd has used so far (user + system, from /proc/PID/stat), seconds.
    func cpuSeconds() -> Double {
        guard
            let stat = try? String(
                contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command: state is the 3rd field; utime and stime the 14th and 15th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else {
            return 0
        }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM and wait (fleetd commits what it holds, then exits).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            // Polled: waitUntilExit can miss the exit and wait forever.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        if !closed { close(notifyFD) }
        closed = true
    }

    /// A viewer token for this daemon's database, made with the fleetctl
    /// beside `fleetd`.
    func viewerToken(fleetd: String) throws -> String {
        let token = try Self.fleetctl(
            fleetd, ["tokens", "add", "bench", "--role", "viewer", "--db", database])
        guard token.hasPrefix("fltk_") else { throw ValidationError("fleetctl tokens add failed") }
        return token
    }

    /// A Teltonika load on UDP `port` (one fix a datagram, `devices`
    /// devices starting at `points` or the workload's square, runs of
    /// `seconds`, timed by `clock` when given), warmed up: every device's
    /// first fix sent at 5 000 a second and acknowledged. Throws when the
    /// warm-up is not acknowledged in full.
    static func warmTeltonikaLoad(
        port: Int, devices: Int, seconds: Double, points: String?, clock: SendClock? = nil
    ) throws -> LoadGenerator {
        var options = LoadOptions()
        options.proto = .teltonika
        options.devices = devices
        options.seconds = seconds
        options.drainSeconds = 5
        let client = try UDPClient(host: "127.0.0.1", port: port, receiveBuffer: 16 << 20)
        let starts = try points.map(LoadPoints.load) ?? LoadPoints.workloadSquare(count: 100_000)
        let generator = LoadGenerator(client: client, options: options, points: starts)
        if let clock { generator.clock = clock }
        let w = generator.warmUp(rate: 5_000)
        guard w.fixesAcked == w.fixesSent else {
            throw ValidationError("warm-up: \(w.fixesAcked) of \(w.fixesSent) acknowledged")
        }
        return generator
    }

    /// Runs the fleetctl beside `fleetd`; its standard output, trimmed.
    static func fleetctl(_ fleetd: String, _ args: [String], stdin: String? = nil) throws -> String
    {
        let ctl = URL(fileURLWithPath: fleetd).deletingLastPathComponent()
            .appendingPathComponent("fleetctl").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ctl)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ValidationError("fleetctl \(args.first ?? ""): exit \(p.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

}
