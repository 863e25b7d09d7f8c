import ArgumentParser
import FleetModel
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

/// `fleetbench webhooks`: how fast fleetd delivers a backlog of alerts to
/// one subscription whose receiver answers at once (loopback, the
/// end-to-end tests' receiver in Python, counting only). The database holds
/// `--alerts` alerts before fleetd starts; the subscription is created with
/// `since = 0` (owed all of them) as fleetd starts; the clock runs from
/// READY to the receiver's count reaching them all.
struct WebhookBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Alerts delivered per second to a webhook receiver.")

    @Option(help: "The fleetd binary.") var fleetd: String
    @Option(help: "The receiver script (Tests/EndToEndTests/Webhooks/receiver.py).")
    var receiver: String
    @Option(help: "A python3 with the standardwebhooks package.") var python = "python3"
    @Option(help: "Alerts in the backlog.") var alerts = 200_000
    @Option(help: "Alerts per request (batch_max).") var batchMax = [100]
    @Option(help: "Sittings per batch size (the median is reported).") var runs = 3

    func run() throws {
        let secret =
            "whsec_"
            + Data((0..<32).map { _ in UInt8.random(in: 0...255) })
            .base64EncodedString()
        for size in batchMax {
            var rates: [Double] = []
            for _ in 0..<runs {
                rates.append(try sitting(batchMax: size, secret: secret))
                say(String(format: "batch_max %d: %.0f alerts/s", size, rates.last!))
            }
            let sorted = rates.sorted()
            say(
                String(
                    format: "batch_max %d: median %.0f alerts/s delivered (%d sittings, %.0f–%.0f)",
                    size, sorted[sorted.count / 2], runs, sorted.first!, sorted.last!))
        }
    }

    private func sitting(batchMax: Int, secret: String) throws -> Double {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Self.backlog(alerts, in: dir)
        store.stopUpkeep()
        let r = try BenchReceiver(python: python, script: receiver, secret: secret)
        defer { r.stop() }
        let daemon = try BenchDaemon(
            fleetd: fleetd, dir: dir, fences: "",
            extraConfig: r.config(count: 1, secret: secret, batchMax: batchMax, since: 0))
        defer { daemon.stop() }
        let start = Date()
        let deadline = start.addingTimeInterval(300)
        while r.alerts() < alerts, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let took = Date().timeIntervalSince(start)
        guard r.alerts() >= alerts else {
            throw BenchFailure("\(r.alerts()) of \(alerts) alerts delivered in 300 s")
        }
        return Double(alerts) / took
    }

    /// A backlog of `count` alerts of 1 000 devices and 100 fences in
    /// `dir/bench.db`, as a commit stage writes them; the store that wrote them.
    static func backlog(_ count: Int, in dir: URL) throws -> SQLiteStore {
        let store = try SQLiteStore(path: dir.appendingPathComponent("bench.db").path)
        var written = 0
        while written < count {
            var b = WriteBatch()
            for i in written..<min(written + 2000, count) {
                b.alerts.append(
                    Alert(
                        type: i % 2 == 0 ? .geofenceEnter : .geofenceExit,
                        device: "dev-\(i % 1000)",
                        time: 1_700_000_000_000 + Int64(i) * 100, fence: "fence-\(i % 100)",
                        lat: 48.1, lon: 11.5))
            }
            written += b.alerts.count
            try store.commit(b, committedMs: WallClock.system.nowMs())
        }
        return store
    }
}
