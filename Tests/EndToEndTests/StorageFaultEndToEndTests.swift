import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Storage that stops accepting writes under a running daemon: nothing is
/// acknowledged while it fails, the daemon stays up and says so, and it
/// resumes by itself once the fault clears, losing nothing.
///
/// The fault is real: `prlimit(1)` lowers the running fleetd's file-size
/// limit (`RLIMIT_FSIZE`, setrlimit(2)) to one byte, so every write SQLite
/// makes to its database and WAL fails with `EFBIG` — what a full disk
/// (`ENOSPC`) looks like to SQLite, and unlike `chmod`, it binds root too.
@Suite(.serialized, .offPool) struct StorageFaultEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    /// `prlimit --pid PID --fsize=LIMIT`.
    func fileSizeLimit(_ pid: Int32, _ limit: String) throws {
        let r = try runTool("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=\(limit)"])
        guard r.status == 0 else { throw E2EError("prlimit failed: \(r.err)") }
    }

    @Test func aFailingDiskHoldsAcknowledgementsAndTheDaemonResumesByItself() throws {
        // Under a watchdog (4 s): failing storage is handled, not a hang.
        let d = try DaemonProcess(fences: nil, environment: ["WATCHDOG_USEC": "4000000"])
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        let before = (1...5).map { fixLine($0, t0 + Int64($0) * 1000, lat: 48.1, lon: 11.5) }
        #expect(exchange(client, before)?.acked == [1, 2, 3, 4, 5])

        try fileSizeLimit(d.process.processIdentifier, "1:unlimited")
        let during = (6...10).map { fixLine($0, t0 + Int64($0) * 1000, lat: 48.1, lon: 11.5) }
        // Not acknowledged while storage fails, however often the device resends.
        for _ in 0..<3 { #expect(exchange(client, during, timeout: 700) == nil) }
        #expect(d.process.isRunning)
        let failing = d.notify.waitFor("STORAGE FAILING", timeout: 5)
        #expect(failing != nil, "no STATUS= about failing storage; log:\n\(d.log)")
        // Still fed while it fails, fixes waiting: the writer retries, it is not stuck.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(d.notify.waitFor("WATCHDOG=1", timeout: 3) != nil)
        #expect(!d.log.contains("not alive"), "\(d.log)")

        try fileSizeLimit(d.process.processIdentifier, "unlimited:unlimited")
        // The held batch commits on a retry; the device's next resend is acknowledged.
        var reply: JSONReply?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, reply?.acked.count != 5 {
            reply = exchange(client, during, timeout: 500)
        }
        #expect(reply?.acked == [6, 7, 8, 9, 10])
        #expect(d.notify.waitFor("STATUS=ingesting", timeout: 5) != nil)
        // The resends held during the fault are answered too (duplicates): let them come.
        while client.receive(timeoutMs: 300) != nil {}
        let after = (11...12).map { fixLine($0, t0 + Int64($0) * 1000, lat: 48.1, lon: 11.5) }
        #expect(exchange(client, after)?.acked == [11, 12])

        // Every fix exactly once.
        let times = try d.fleetctl("positions", ["--device", "truck-1"]).compactMap {
            $0["time"] as? String
        }
        #expect(times.count == 12)
        #expect(Set(times).count == 12)
        #expect(d.log.contains("storage recovered"), "\(d.log)")
        #expect(d.stop() == 0)
    }

    /// A TCP device whose records cannot be committed is not answered: the
    /// connection is closed after `tcp.commit_timeout_s`, and the records
    /// resent on the next connection once storage is back are stored once.
    @Test func aTCPUnitNotCommittedInTimeClosesItsConnectionUnanswered() throws {
        let d = try DaemonProcess(
            fences: nil, extraConfig: "[tcp]\ncommit_timeout_s = 2\n",
            listenExtra: "teltonika_tcp = \"127.0.0.1:0\"")
        let port = try #require(d.ports["teltonika_tcp"])
        let imei = "352093081452253"
        func connect() throws -> TCPTestClient {
            let c = try TCPTestClient(port: port)
            c.send(TeltonikaEncoder.handshake(imei: imei))
            #expect(c.receive(1).bytes == [1])
            return c
        }
        func frame(_ k: Int64) -> [UInt8] {
            var r = TeltonikaEncoder.Record(time: t0 + k * 1000, lat: 48.1, lon: 11.5)
            r.sats = 9
            return TeltonikaEncoder.tcp(records: [r])
        }
        var c = try connect()
        c.send(frame(1))
        #expect(c.receive(4).bytes == [0, 0, 0, 1])
        try fileSizeLimit(d.process.processIdentifier, "1:unlimited")
        c.send(frame(2))
        let started = Date()
        #expect(c.receive(4, timeoutMs: 1500).bytes.isEmpty)  // unanswered
        #expect(c.closedByServer(timeoutMs: 5000), "not closed after tcp.commit_timeout_s")
        let waited = Date().timeIntervalSince(started)
        // (Its warning is not in the log: the file-size limit stops the log file too.)
        #expect(waited >= 1.9 && waited < 6, "closed after \(waited) s")
        try fileSizeLimit(d.process.processIdentifier, "unlimited:unlimited")
        // The device resends on a new connection until it is answered.
        var answered = false
        let deadline = Date().addingTimeInterval(15)
        while !answered, Date() < deadline {
            c = try connect()
            c.send(frame(2))
            answered = c.receive(4, timeoutMs: 3000).bytes == [0, 0, 0, 1]
        }
        #expect(answered)
        let times = try d.fleetctl("positions", ["--device", imei]).compactMap {
            $0["time"] as? String
        }
        #expect(times.count == 2 && Set(times).count == 2, "\(times)")
        #expect(d.stop() == 0)
    }
}
