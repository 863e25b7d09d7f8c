import ArgumentParser
import FleetProtocols
import FleetSimCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `fleetbench ingest`: a real `fleetd` process on loopback, Teltonika or
/// JSON datagrams offered at fixed rates, and the acknowledgements (sent
/// only after commit) counted: receive → decode → track → commit → reply.
struct IngestBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "End-to-end ingest through the real daemon on loopback, at offered rates.")

    @Option(help: "The fleetd binary.")
    var fleetd: String

    @Option(help: "teltonika or json.")
    var proto = "teltonika"

    @Option(help: "Records per datagram (Teltonika).")
    var records = 1

    @Option(help: "Seconds per rate.")
    var seconds = 3.0

    @Option(help: "Offered datagrams per second (repeat for several runs).")
    var rate: [Int] = [10_000, 25_000, 50_000]

    @Option(help: "Distinct devices the datagrams come from.")
    var devices = 1000

    func run() throws {
        print("protocol\trecords/dgram\toffered dgram/s\tsent\tacked\tacked fixes/s\tunacked")
        for r in rate { try once(rate: r) }
    }

    func once(rate: Int) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let notify = dir.appendingPathComponent("notify").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in notify.utf8.enumerated() { raw[i] = b }
        }
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let config = dir.appendingPathComponent("f.toml").path
        try """
        [storage]
        database = "\(dir.path)/b.db"
        [geofences]
        file = ""
        [listen]
        json = "127.0.0.1:0"
        teltonika = "127.0.0.1:0"
        nmea = ""
        [log]
        level = "error"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: fleetd)
        p.arguments = ["--config", config]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify
        p.environment = env
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        var port = 0
        var buf = [UInt8](repeating: 0, count: 4096)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while port == 0, poll(&pfd, 1, 20_000) > 0 {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let msg = String(decoding: buf[0..<max(n, 0)], as: UTF8.self)
            if let r = msg.range(of: "\(proto) 127.0.0.1:") {
                port = Int(msg[r.upperBound...].prefix { $0.isNumber }) ?? 0
            }
        }
        guard port > 0 else { throw ValidationError("fleetd did not report ready") }

        let client = try UDPClient(host: "127.0.0.1", port: port)
        let t0 = Int64(Date().timeIntervalSince1970 * 1000) - 86_400_000
        let total = Int(Double(rate) * seconds)
        var sent = 0
        var acked = 0
        let start = Date()
        var seq: Int64 = 0
        func drain(_ timeout: Int32) {
            while let reply = client.receive(timeoutMs: timeout) {
                if proto == "teltonika" {
                    acked += reply.count == 7 ? Int(reply[6]) : 0
                } else {
                    acked += JSONReply.parse(reply)?.acked.count ?? 0
                }
                if timeout > 0 { break }
            }
        }
        while sent < total {
            // Paced: send what is due by now, then collect replies.
            let due = min(total, Int(Date().timeIntervalSince(start) * Double(rate)))
            while sent < due {
                let device = sent % devices
                let time = t0 + Int64(sent / devices) * 1000
                if proto == "teltonika" {
                    let recs = (0..<records).map { k in
                        var r = TeltonikaEncoder.Record(
                            time: time * 10 + Int64(k), lat: 48.85 + Double(device) * 1e-4,
                            lon: 2.35)
                        r.io = [(239, 1, 1), (66, 2, 12_600), (16, 4, UInt64(sent))]
                        return r
                    }
                    client.send(
                        TeltonikaEncoder.udp(
                            avlPacketId: UInt8(truncatingIfNeeded: sent),
                            imei: String(350_000_000_000_000 + device), records: recs))
                } else {
                    seq += 1
                    client.send(
                        Array(
                            #"{"device":"d\#(device)","time":\#(time),"lat":48.85,"lon":2.35,"seq":\#(seq)}"#
                                .utf8))
                }
                sent += 1
            }
            drain(0)
        }
        let deadline = Date().addingTimeInterval(3)
        while acked < sent * (proto == "teltonika" ? records : 1), Date() < deadline { drain(50) }
        let elapsed = Date().timeIntervalSince(start)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        let fixes = sent * (proto == "teltonika" ? records : 1)
        print(
            String(
                format: "%@\t%d\t%d\t%d\t%d\t%.0f\t%d", proto, proto == "teltonika" ? records : 1,
                rate, sent, acked,
                Double(acked) / elapsed, fixes - acked))
    }
}
