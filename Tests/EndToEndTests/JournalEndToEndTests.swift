import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// fleetd writing to the systemd journal through libsystemd's real
/// `sd_journal_sendv`: fleetd runs in a mount namespace of its own
/// (`unshare --mount`, as root) where `/run` is a folder of the test's, so
/// `/run/systemd/journal/socket`, where libsystemd sends, is a datagram
/// socket the test reads; `JOURNAL_STREAM` names fleetd's standard error,
/// as systemd sets it. The entries are read in the journal's native
/// protocol (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/).
@Suite(.serialized, .offPool) struct JournalEndToEndTests {
    /// A datagram socket at `path/systemd/journal/socket`.
    final class JournalSocket {
        let root: URL
        let fd: Int32

        init() throws {
            root = TestScratch.root.appendingPathComponent(
                "fleetd-journal-\(UUID().uuidString.prefix(8))")
            let dir = root.appendingPathComponent("systemd/journal")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { throw E2EError("socket: \(errno)") }
            var rcv: Int32 = 8 << 20
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, socklen_t(MemoryLayout<Int32>.size))
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            let path = dir.appendingPathComponent("socket").path
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
            }
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard ok == 0 else { throw E2EError("bind \(path): \(errno)") }
        }

        deinit {
            close(fd)
            try? FileManager.default.removeItem(at: root)
        }

        /// The command that runs fleetd with `root` as its `/run`.
        var wrapper: [String] {
            [
                "/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                #"mount --bind "$0" /run && exec "$@""#, root.path,
            ]
        }

        /// Every entry received within `timeoutMs` of the last one.
        func entries(timeoutMs: Int32 = 500) -> [[String: String]] {
            var out: [[String: String]] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 17)
            while true {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, timeoutMs) > 0 else { return out }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { out.append(Self.parse(Array(buffer[0..<n]))) }
            }
        }

        /// One native-protocol entry: `KEY=value\n`, or `KEY\n` + 64-bit
        /// little-endian length + value + `\n` for values with new lines.
        static func parse(_ b: [UInt8]) -> [String: String] {
            var fields: [String: String] = [:]
            var i = 0
            while i < b.count {
                guard let nl = b[i...].firstIndex(of: 10) else { break }
                let line = b[i..<nl]
                if let eq = line.firstIndex(of: UInt8(ascii: "=")) {
                    fields[String(decoding: line[..<eq], as: UTF8.self)] = String(
                        decoding: line[(eq + 1)...], as: UTF8.self)
                    i = nl + 1
                } else {
                    let key = String(decoding: line, as: UTF8.self)
                    var length = 0
                    for k in 0..<8 { length |= Int(b[nl + 1 + k]) << (8 * k) }
                    let start = nl + 9
                    fields[key] = String(decoding: b[start..<(start + length)], as: UTF8.self)
                    i = start + length + 1
                }
            }
            return fields
        }
    }

    static var canRun: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }

    /// fleetd with the journal's socket of a `JournalSocket` and its
    /// standard error a journal stream, `[alerts]` as `alerts` says; nil
    /// (an issue recorded) where a mount namespace cannot be made.
    static func started(alerts: String = "", http: String = "") throws -> (
        JournalSocket, DaemonProcess
    )? {
        guard canRun else {
            Issue.record("needs root and /usr/bin/unshare (util-linux) for a mount namespace")
            return nil
        }
        let journal = try JournalSocket()
        let d = try DaemonProcess(
            fences: depotFences, extraConfig: alerts.isEmpty ? "" : "[alerts]\n\(alerts)",
            tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0", http: http,
            wrapper: journal.wrapper, journalStream: true)
        return (journal, d)
    }

    /// truck-1 at these latitudes, 10 s apart, each fix acknowledged.
    static func drive(_ d: DaemonProcess, through lats: [Double]) throws {
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        for (i, lat) in lats.enumerated() {
            let t = 1_700_000_000_000 + Int64(i) * 10_000
            #expect(exchange(client, [fixLine(i + 1, t, lat: lat, lon: 11.05)]) != nil)
        }
    }

    /// 120 vehicles entering the depot in one datagram: one commit, 120 alerts.
    static func depotStorm(_ d: DaemonProcess) throws {
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        let lines = (1...120).map {
            fixLine(1, 1_700_000_000_000, lat: 48.05, lon: 11.05, device: "truck-\($0)")
        }
        #expect(exchange(client, lines)?.acked.count == 120)
    }

    @Test func logsAndAlertsGoToTheJournalWithTheirFields() throws {
        guard let (journal, d) = try Self.started() else { return }
        try Self.drive(d, through: [47.95, 48.05, 48.15])
        var entries = journal.entries()
        #expect(d.stop() == 0)
        entries += journal.entries(timeoutMs: 300)

        // Log lines: native entries with their priority and source.
        let ready = try #require(entries.first { $0["MESSAGE"]?.contains("ready:") == true })
        #expect(ready["PRIORITY"] == "5")  // notice
        #expect(ready["SYSLOG_IDENTIFIER"] == "fleetd")
        #expect(ready["FLEETD_LOGGER"] == "fleetd")
        #expect(
            ready["CODE_FILE"]?.hasSuffix(".swift") == true && Int(ready["CODE_LINE"] ?? "") != nil)
        #expect(entries.contains { $0["MESSAGE"]?.hasPrefix("stopped:") == true })
        // Nothing went to standard error: it is the journal's stream.
        #expect(d.log.isEmpty, "standard error: \(d.log.prefix(500))")

        // One entry per committed alert, its fields equal to the stored alert.
        let stored = try d.fleetctl("alerts")
        #expect(stored.map { $0["type"] as? String } == ["geofence_enter", "geofence_exit"])
        let alerts = entries.filter { $0["FLEETD_ALERT_ID"] != nil }
        #expect(alerts.count == stored.count)
        for (entry, alert) in zip(alerts, stored) {
            #expect(entry["FLEETD_ALERT_ID"] == "\(alert["id"] as? Int ?? -1)")
            #expect(entry["FLEETD_ALERT_TYPE"] == alert["type"] as? String)
            #expect(entry["FLEETD_DEVICE"] == "truck-1")
            #expect(entry["FLEETD_FENCE"] == "depot")
            #expect(entry["FLEETD_ALERT_TIME"] == alert["time"] as? String)
            #expect(entry["PRIORITY"] == "5" && entry["SYSLOG_IDENTIFIER"] == "fleetd")
            let json =
                try JSONSerialization.jsonObject(
                    with: Data((entry["FLEETD_ALERT_JSON"] ?? "").utf8)) as? [String: Any]
            #expect(json?["id"] as? Int == alert["id"] as? Int)
            #expect(
                entry["MESSAGE"]
                    == "alert \(alert["id"] as? Int ?? -1): \(alert["type"] as? String ?? "") truck-1 depot"
            )
        }
    }

    /// `alerts.journal_backlog`: a commit whose alerts would put more than
    /// that many waiting for the journal leaves them out, counted and
    /// logged; the database has every one.
    @Test func alertsBeyondTheBacklogAreLeftOutAndCounted() throws {
        guard let (journal, d) = try Self.started(alerts: "journal_backlog = 100") else { return }
        try Self.depotStorm(d)
        #expect(d.stop() == 0)
        let entries = journal.entries(timeoutMs: 500)
        let stored = try d.fleetctl("alerts").count
        let sent = entries.filter { $0["FLEETD_ALERT_ID"] != nil }.count
        #expect(stored == 120)
        #expect(sent < stored, "\(sent) of \(stored) in the journal")
        let note = entries.first { $0["MESSAGE"]?.contains("alerts were left out") == true }
        #expect(
            note?["MESSAGE"]
                == "journal: \(stored - sent) alerts were left out (the journal lagged)",
            "\(note ?? [:])")
    }

    /// `alerts.journal_per_s`: a storm past it gets that many entries and
    /// one summary entry (counts by type, first and last id), written a
    /// second after it began without another commit to carry it.
    @Test func aStormPastTheRateIsSummedUpInOneEntry() throws {
        guard let (journal, d) = try Self.started(alerts: "journal_per_s = 10", http: "127.0.0.1:0")
        else { return }
        try Self.depotStorm(d)
        // The summary comes by its timer, about a second on, fleetd still running.
        let entries = journal.entries(timeoutMs: 2_500)
        let metrics = try AbuseEndToEndTests.reply(
            try #require(d.ports["http"]),
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(d.stop() == 0)
        let ids = try d.fleetctl("alerts").compactMap { $0["id"] as? Int }.sorted()
        #expect(ids.count == 120)
        let sent = entries.compactMap { $0["FLEETD_ALERT_ID"].flatMap { Int($0) } }
        #expect(sent == Array(ids.prefix(10)))
        let summary = try #require(entries.first { $0["FLEETD_ALERTS_LEFT_OUT"] != nil })
        #expect(summary["FLEETD_ALERTS_LEFT_OUT"] == "110")
        #expect(summary["FLEETD_ALERT_FIRST_ID"] == "\(ids[10])")
        #expect(summary["FLEETD_ALERT_LAST_ID"] == "\(ids[119])")
        #expect(
            summary["MESSAGE"]
                == "110 alerts not written here one by one (more than 10 a second): "
                + "110 geofence_enter; ids \(ids[10]) to \(ids[119]); all are stored (fleetctl alerts)"
        )
        #expect(metrics.contains("fleetd_journal_alerts_summarized_total 110"), "\(metrics)")
    }

    @Test func alertsStayOutOfTheJournalWhenTurnedOff() throws {
        guard let (journal, d) = try Self.started(alerts: "journal = false") else { return }
        try Self.drive(d, through: [47.95, 48.05])
        #expect(d.stop() == 0)
        let entries = journal.entries(timeoutMs: 300)
        #expect(try d.fleetctl("alerts").count == 1)
        #expect(entries.contains { $0["MESSAGE"]?.contains("ready:") == true })
        #expect(!entries.contains { $0["FLEETD_ALERT_ID"] != nil })
    }
}
