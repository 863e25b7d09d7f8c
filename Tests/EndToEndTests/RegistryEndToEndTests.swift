import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

@Suite(.serialized, .offPool) struct RegistryEndToEndTests {
    @Test func unknownDevicesAreRefusedUntilRegistered() throws {
        let d = try DaemonProcess(fences: nil, extraConfig: "[devices]\naccept_unknown = false\n")
        let json = try UDPClient(host: "127.0.0.1", port: d.port)
        let t0 = WallClock.system.nowMs() - 10_000
        let reply = exchange(json, [fixLine(1, t0, lat: 48.05, lon: 11.05, device: "van-3")])
        #expect(reply?.acked == [] && reply?.rejected.map(\.reason) == [.unknownDevice])
        let tel = try UDPClient(host: "127.0.0.1", port: d.ports["teltonika"]!)
        let packet = TeltonikaEncoder.udp(
            avlPacketId: 9, imei: "352093081452251", records: [.init(time: t0, lat: 48, lon: 11)])
        tel.send(packet)
        #expect(tel.receive(timeoutMs: 600) == nil)

        let add = try runTool(
            try Binaries.path("fleetctl"),
            [
                "devices", "add", "van-3", "--db", d.database, "--name", "Van 3", "--plate",
                "M-FD 303",
            ])
        #expect(add.status == 0, "\(add.err)")
        _ = try runTool(
            try Binaries.path("fleetctl"),
            ["devices", "add", "352093081452251", "--db", d.database])
        Thread.sleep(forTimeInterval: 2.5)  // the daemon re-reads the registry every 2 s
        #expect(
            exchange(json, [fixLine(2, t0 + 1000, lat: 48.05, lon: 11.05, device: "van-3")])
                == JSONReply(acked: [2]))
        tel.send(packet)
        #expect(tel.receive(timeoutMs: 5000) == [0x00, 0x05, 0xCA, 0xFE, 0x01, 0x09, 0x01])

        let devices = try d.fleetctl("devices")
        let van = devices.first { $0["device"] as? String == "van-3" }
        #expect(van?["name"] as? String == "Van 3" && van?["plate"] as? String == "M-FD 303")
        #expect(van?["registered"] as? Bool == true && van?["positions"] as? Int == 1)
        let rm = try runTool(
            try Binaries.path("fleetctl"), ["devices", "remove", "van-3", "--db", d.database])
        #expect(rm.status == 0)
        let again = try runTool(
            try Binaries.path("fleetctl"), ["devices", "remove", "van-3", "--db", d.database])
        #expect(again.status == 1 && again.err.contains("not a registered device"))
        #expect(d.stop() == 0)
    }
}
