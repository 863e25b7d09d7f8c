import FleetTestSupport
import Foundation
import Synchronization

/// The built binaries: next to the test bundle in SwiftPM's build folder.
enum Binaries {
    static var directory: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return exe.deletingLastPathComponent()
    }

    static func path(_ name: String) throws -> String {
        let p = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: p) else {
            throw E2EError("\(p) is missing: build everything first (swift build --build-tests)")
        }
        return p
    }

    /// The package's root folder.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}

/// Runs a command to completion (bounded), returning its exit status and output.
func runTool(
    _ path: String, _ args: [String], timeout: Double = 30, stdin: String? = nil,
    cwd: URL? = nil, environment: [String: String]? = nil
) throws
    -> (
        status: Int32, out: String, err: String
    )
{
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    if let cwd { p.currentDirectoryURL = cwd }
    if let environment { p.environment = environment }
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    p.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try p.run()
    if let stdin {
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try? input.fileHandleForWriting.close()
    }
    let deadline = Date().addingTimeInterval(timeout)
    // Read while it runs so a full pipe cannot stall it.
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
        outData = out.fileHandleForReading.readDataToEndOfFile()
    }
    DispatchQueue.global().async(group: group) {
        errData = err.fileHandleForReading.readDataToEndOfFile()
    }
    while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    if p.isRunning {
        p.terminate()
        throw E2EError("\(path) \(args) did not finish in \(timeout) s")
    }
    p.waitUntilExit()
    group.wait()
    return (
        p.terminationStatus, String(decoding: outData, as: UTF8.self),
        String(decoding: errData, as: UTF8.self)
    )
}

/// `runTool` on a thread of its own, for a long run (minutes) inside an
/// async test: the wait then holds no thread of the cooperative pool, which
/// on a 2-core machine has two, and every other async test of the suite
/// would stall behind it (streams not opened, sleeps overslept).
func runToolOffPool(
    _ path: String, _ args: [String], timeout: Double = 30, cwd: URL? = nil,
    environment: [String: String]? = nil
) async throws -> (status: Int32, out: String, err: String) {
    try await withCheckedThrowingContinuation { done in
        Thread {
            done.resume(
                with: Result {
                    try runTool(path, args, timeout: timeout, cwd: cwd, environment: environment)
                })
        }.start()
    }
}

/// Daemons started and not yet reaped: killed when the test process exits,
/// so a test that fails (or throws) mid-way leaves no fleetd behind.
let runningDaemons = Mutex<Set<Int32>>([])
private let reaperInstalled: Bool = {
    atexit {
        runningDaemons.withLock { pids in
            for pid in pids { kill(pid, SIGKILL) }
        }
    }
    return true
}()

/// A real `fleetd` process on a loopback port chosen by the kernel, with a
/// temporary database and its own notify socket.
final class DaemonProcess {
    let dir: URL
    let database: String
    let notify: NotifySocket
    let process = Process()
    /// The JSON port (as `port`), and each protocol's (and `http`'s), from the READY status line.
    private(set) var port = 0
    private(set) var ports: [String: Int] = [:]
    let stderrPath: String
    /// The config file fleetd runs with.
    let configPath: String
    /// How `fleetctl` is told the database: `--db` the SQLite file, or
    /// `--config` the config file (which names a PostgreSQL database).
    var databaseArgs: [String]

    /// Starts fleetd with `fences` (GeoJSON text, nil = none) and extra config
    /// lines; waits for READY=1.
    ///
    /// Most tests drive synthetic tracks that leap kilometres between fixes to
    /// cross fences: by default the jump filter is off (`tracking`) and trips
    /// start only after 1 000 km (`trip`). Tests of those pass their own lines.
    init(
        fences: String?, extraConfig: String = "", dir existing: URL? = nil,
        storageExtra: String = "retain_days = 0",  // test fixes are years old: keep them
        geofencesExtra: String = "",
        tracking: String = "jump_speed_kmh = 0", trip: String = "start_distance_m = 1000000",
        json: String = "127.0.0.1:0", http: String = "", osmand: String = "",
        listenExtra: String = "",
        httpExtra: String = "", wrapper: [String] = [], journalStream: Bool = false,
        environment: [String: String] = [:]
    ) throws {
        dir =
            existing
            ?? TestScratch.root.appendingPathComponent(
                "fleetd-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        database = dir.appendingPathComponent("fleetd.db").path
        var fencesPath = ""
        if let fences {
            fencesPath = dir.appendingPathComponent("fences.geojson").path
            try fences.write(toFile: fencesPath, atomically: true, encoding: .utf8)
        }
        let config = """
            [storage]
            database = "\(database)"
            \(storageExtra)
            [geofences]
            file = "\(fencesPath)"
            \(geofencesExtra)
            [listen]
            json = "\(json)"
            teltonika = "127.0.0.1:0"
            nmea = "127.0.0.1:0"
            osmand = "\(osmand)"
            \(listenExtra)
            [http]
            listen = "\(http)"
            \(httpExtra)
            [tracking]
            \(tracking)
            [trip]
            \(trip)
            \(extraConfig)
            """
        configPath = dir.appendingPathComponent("fleetd.toml").path
        databaseArgs = ["--db", database]
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        notify = try NotifySocket(path: dir.appendingPathComponent("notify.sock").path)
        stderrPath = dir.appendingPathComponent("fleetd.log").path
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        // `wrapper`: a command that runs fleetd (its path and arguments last).
        let fleetd = try Binaries.path("fleetd")
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? fleetd)
        process.arguments =
            wrapper.dropFirst() + (wrapper.isEmpty ? [] : [fleetd]) + [
                "--config", configPath,
            ]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env["JOURNAL_STREAM"] = nil
        for (k, v) in environment { env[k] = v }
        if journalStream {
            // As systemd does for a service logging to the journal: the
            // device and inode of its standard error (here, the log file).
            var st = stat()
            guard stat(stderrPath, &st) == 0 else { throw E2EError("stat \(stderrPath)") }
            env["JOURNAL_STREAM"] = "\(st.st_dev):\(st.st_ino)"
        }
        process.environment = env
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardOutput = FileHandle.nullDevice
        _ = reaperInstalled
        try process.run()
        let pid = process.processIdentifier
        runningDaemons.withLock { _ = $0.insert(pid) }
        guard let ready = notify.waitFor("READY=1", timeout: 20) else {
            process.terminate()
            throw E2EError("fleetd sent no READY=1 in 20 s; log:\n\(log)")
        }
        // "STATUS=ready; listening on json 127.0.0.1:P1, teltonika 127.0.0.1:P2, nmea 127.0.0.1:P3"
        for name in ["json", "teltonika", "nmea", "http", "osmand", "teltonika_tcp", "gt06", "h02"]
        {
            if let r = ready.range(of: "\(name) 127.0.0.1:"),
                let p = Int(ready[r.upperBound...].prefix { $0.isNumber })
            {
                ports[name] = p
            }
        }
        guard let p = ports["json"] else {
            throw E2EError("READY message names no JSON port: \(ready)")
        }
        port = p
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The refusals counted under `key` (`PROTO/REASON`) in the status file
    /// (written every second), read until they reach `count` or 10 s pass.
    func rejected(_ key: String, reaching count: Int) -> Int {
        var n = 0
        let deadline = Date().addingTimeInterval(10)
        repeat {
            if let data = FileManager.default.contents(atPath: database + ".status.json"),
                let status = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let rejected = status["rejected"] as? [String: Any]
            {
                n = rejected[key] as? Int ?? 0
            }
            if n >= count { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        return n
    }

    /// SIGTERM, then waits (bounded) for the exit; returns the exit status.
    func stop(timeout: Double = 20) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        process.terminate()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            // A hung stop: the threads' stacks go to `hang.txt` beside the log, for the post-mortem.
            let gdb = "/usr/bin/gdb"
            if FileManager.default.isExecutableFile(atPath: gdb),
                let r = try? runTool(
                    gdb,
                    [
                        "-p", "\(process.processIdentifier)", "--batch", "-ex",
                        "thread apply all bt",
                    ],
                    timeout: 60)
            {
                try? r.out.write(
                    to: dir.appendingPathComponent("hang.txt"), atomically: true, encoding: .utf8)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            forget()
            return -1
        }
        forget()
        return process.terminationStatus
    }

    /// SIGKILL: a crash.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        forget()
    }

    private func forget() {
        let pid = process.processIdentifier
        runningDaemons.withLock { _ = $0.remove(pid) }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        forget()
        notify.close()
    }

    /// `fleetctl SUBCOMMAND --db DB --json ARGS`, parsed as JSON lines.
    func fleetctl(_ sub: String, _ args: [String] = []) throws -> [[String: Any]] {
        let r = try runTool(
            try Binaries.path("fleetctl"), [sub] + databaseArgs + ["--json"] + args)
        guard r.status == 0 else {
            throw E2EError("fleetctl \(sub) failed (\(r.status)): \(r.err)")
        }
        return try r.out.split(separator: "\n").map {
            guard let o = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            else {
                throw E2EError("not a JSON object: \($0)")
            }
            return o
        }
    }
}
