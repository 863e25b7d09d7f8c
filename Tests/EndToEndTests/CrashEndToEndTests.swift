import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Nothing acknowledged is lost: devices stream fixes (each keeps its fixes
/// until acknowledged and resends them) while fleetd is killed with SIGKILL
/// at random moments and restarted.
@Suite(.serialized, .offPool) struct CrashEndToEndTests {
    static let routes = [
        "t01_munich_car_1hz.csv", "t02_visnjan_car.csv", "t03_limerick_bus304.csv",
    ]
    .map {
        Binaries.packageRoot.appendingPathComponent("Simulator/routes/\($0)").path
    }

    /// `fleetsim replay` as devices do it: in order, 3 fixes per datagram, resent after 250 ms.
    static func sender(port: Int) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Binaries.path("fleetsim"))
        p.arguments =
            [
                "replay", "--target", "127.0.0.1:\(port)", "--speedup", "0", "--ordered",
                "--per-datagram", "3", "--resend-ms", "250", "--attempts", "1000",
            ] + routes
        p.standardOutput = Pipe()
        p.standardError = Pipe()
        return p
    }

    /// Waits (bounded) for the sender; returns its exit status and output.
    static func finish(_ p: Process, timeout: Double) -> (Int32, String) {
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        let out = (p.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
        return (p.terminationStatus, String(decoding: out ?? Data(), as: UTF8.self))
    }

    /// Alerts and trips without ids, sorted (devices interleave differently run to run,
    /// a device's own alerts keep their order through their times).
    static func outcome(_ d: DaemonProcess) throws -> [String] {
        let (alerts, trips) = try TripsEndToEndTests.outcome(d)
        return (alerts + trips).sorted()
    }

    @Test func randomKillsLoseNoAcknowledgedFixAndChangeNoAlert() throws {
        let zones = try TripsEndToEndTests.zones
        // The reference: the same devices, no kills.
        let calm = try DaemonProcess(fences: zones, tracking: "", trip: "")
        let calmSender = try Self.sender(port: calm.port)
        try calmSender.run()
        let (calmStatus, calmOut) = Self.finish(calmSender, timeout: 60)
        #expect(calmStatus == 0, "\(calmOut)")
        let expected = try Self.outcome(calm)
        #expect(calm.stop() == 0)
        #expect(expected.count > 20)

        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var random = SplitMix64(seed: seed)
        var daemon = try DaemonProcess(fences: zones, tracking: "", trip: "")
        let port = daemon.port
        let sender = try Self.sender(port: port)
        try sender.run()
        var kills = 0
        while kills < 4, sender.isRunning {
            Thread.sleep(forTimeInterval: Double.random(in: 0.1...0.5, using: &random))
            guard sender.isRunning else { break }
            daemon.crash()
            kills += 1
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.3, using: &random))
            daemon = try DaemonProcess(
                fences: zones, dir: daemon.dir, tracking: "", trip: "",
                json: "127.0.0.1:\(port)")
        }
        let (status, out) = Self.finish(sender, timeout: 90)
        let context = "seed \(seed), \(kills) kills; sender:\n\(out)"
        #expect(kills >= 2, "\(context)")
        // Every fix was acknowledged in the end (the sender exits 3 otherwise).
        #expect(status == 0, "\(context)")
        #expect(out.contains(" 0 unacknowledged"), "\(context)")
        // The kills hit the stream: fixes in flight were lost with the daemon and resent.
        let resends = out.split(separator: ",").first { $0.hasSuffix(" resends") }
            .flatMap { Int($0.split(separator: " ").first ?? "") }
        #expect((resends ?? 0) > 0, "\(context)")
        print("crash test: \(context)")

        // Every fix is stored exactly once.
        for (device, count) in [
            ("t01_munich_car_1hz", 1194), ("t02_visnjan_car", 104), ("t03_limerick_bus304", 2144),
        ] {
            let rows = try daemon.fleetctl("positions", ["--device", device])
            let times = rows.compactMap { $0["time"] as? String }
            #expect(times.count == count, "\(device): \(context)")
            #expect(Set(times).count == times.count, "\(device): \(context)")
        }
        // And tracking saw exactly what it saw without kills.
        let got = try Self.outcome(daemon)
        #expect(got == expected, "\(context)")
        #expect(daemon.stop() == 0)
    }
}
