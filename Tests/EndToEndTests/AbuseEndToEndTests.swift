import FleetProtocols
import FleetSimCore
import Foundation
import Testing

/// What a stranger can make a running fleetd do, tried on a running fleetd.
@Suite struct AbuseEndToEndTests {
    /// UDP reflection: datagrams of broken lines sent in a forged name draw
    /// no more bytes than were sent (1 984 nine-byte lines once drew 65 KB
    /// for 17.9 KB), and good lines beside them are still answered.
    @Test func aUDPReplyIsNeverLargerThanTheDatagram() throws {
        let d = try DaemonProcess(fences: nil)
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        var sent = 0
        var received = 0
        for lines in [1, 10, 200, 1984] {
            let datagram = Array(String(repeating: "{\"seq\":1\n", count: lines).utf8)
            #expect(client.send(datagram))
            sent += datagram.count
            while let r = client.receive(timeoutMs: 500) {
                #expect(r.count <= datagram.count, "\(r.count) bytes for \(datagram.count)")
                received += r.count
            }
        }
        #expect(received <= sent, "\(received) bytes out for \(sent) in")
        let good = fixLine(7, 1_700_000_000_000, lat: 48.1, lon: 11.5)
        let mixed = Array((good + "\n" + String(repeating: "{\"seq\":9\n", count: 300)).utf8)
        #expect(client.send(mixed))
        let reply = try #require(client.receive(timeoutMs: 5000))
        #expect(reply.count <= mixed.count)
        #expect(JSONReply.parse(reply)?.acked == [7], "\(String(decoding: reply, as: UTF8.self))")
        #expect(d.stop() == 0)
    }

    /// fleetctl run with no database named, in a directory that holds a
    /// `var/fleetd.db`: the installed config wins when there is one, and
    /// the database used is said either way.
    @Test func fleetctlSaysWhichDatabaseItUsed() throws {
        let d = try DaemonProcess(fences: nil)
        #expect(d.stop() == 0)
        let dir = d.dir.appendingPathComponent("checkout")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("var"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: d.database, toPath: dir.appendingPathComponent("var/fleetd.db").path)
        let r = try runTool(try Binaries.path("fleetctl"), ["summary"], cwd: dir)
        let installed = FileManager.default.fileExists(atPath: "/etc/fleetd/fleetd.toml")
        let expected =
            installed ? "(from /etc/fleetd/fleetd.toml)" : "fleetctl: database var/fleetd.db;"
        #expect(r.err.contains(expected), "\(r.err)")
        // Named, it is not said.
        let named = try runTool(
            try Binaries.path("fleetctl"), ["summary", "--db", d.database], cwd: dir)
        #expect(named.status == 0 && !named.err.contains("fleetctl: database"), "\(named.err)")
    }
}
