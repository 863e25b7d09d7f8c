import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Waits (bounded) until `fleetctl positions` shows `count` rows for `device`.
func waitForPositions(_ d: DaemonProcess, _ device: String, count: Int, timeout: Double = 10) throws
    -> [[String: Any]]
{
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        let rows = try d.fleetctl("positions", ["--device", device])
        if rows.count >= count || Date() > deadline { return rows }
        Thread.sleep(forTimeInterval: 0.1)
    }
}

@Suite(.serialized, .offPool) struct TrackerProtocolsEndToEndTests {
    @Test func teltonikaPacketsAreStoredAndAcknowledgedAfterCommit() throws {
        let d = try DaemonProcess(fences: depotFences)
        let client = try UDPClient(host: "127.0.0.1", port: d.ports["teltonika"]!)
        let now = WallClock.system.nowMs() - 60_000
        var r1 = TeltonikaEncoder.Record(time: now, lat: 48.05, lon: 11.05)
        r1.speedKmh = 42
        r1.angle = 270
        r1.altM = -4
        r1.sats = 12
        r1.io = [
            (239, 1, 1), (240, 1, 1), (21, 1, 4), (66, 2, 12_600), (16, 4, 98_765), (69, 1, 1),
            (1, 1, 0),
        ]
        r1.nx = [(256, Array("VIN1234".utf8))]
        var r2 = TeltonikaEncoder.Record(time: now + 1000, lat: 0, lon: 0)
        r2.sats = 0
        let imei = "352093081452251"
        let packet = TeltonikaEncoder.udp(
            packetId: 0xBEEF, avlPacketId: 0x2A, imei: imei, codec: 0x8E, records: [r1, r2])
        client.send(packet)
        #expect(client.receive(timeoutMs: 5000) == [0x00, 0x05, 0xBE, 0xEF, 0x01, 0x2A, 0x02])
        // The reply came after the commit: the rows are there.
        let rows = try d.fleetctl("positions", ["--device", imei])
        #expect(rows.count == 2)
        let p = rows[0]
        #expect(p["lat"] as? Double == 48.05 && p["lon"] as? Double == 11.05)
        #expect(
            p["speed_kmh"] as? Double == 42 && p["course"] as? Double == 270
                && p["alt_m"] as? Double == -4)
        #expect(
            p["sats"] as? Int == 12 && p["ignition"] as? Bool == true
                && p["movement"] as? Bool == true)
        #expect(p["gsm_signal"] as? Int == 4 && p["ext_voltage_mv"] as? Int == 12_600)
        #expect(
            p["odometer_m"] as? Int == 98_765 && p["gnss_status"] as? Int == 1
                && p["priority"] as? Int == 0)
        let io = p["io"] as? [String: Any]
        #expect(
            io?["239"] as? Int == 1 && io?["66"] as? Int == 12_600
                && io?["256"] as? String == "56494e31323334")
        #expect(rows[1]["valid"] as? Bool == false)
        // The first record entered the depot; the no-fix record moved nothing.
        #expect(try d.fleetctl("alerts").map { $0["type"] as? String } == ["geofence_enter"])

        // A resend after a lost reply: acknowledged again, stored once.
        client.send(packet)
        #expect(client.receive(timeoutMs: 5000) == [0x00, 0x05, 0xBE, 0xEF, 0x01, 0x2A, 0x02])
        #expect(try d.fleetctl("positions", ["--device", imei]).count == 2)

        // Structurally invalid packets get no reply and store nothing.
        var lying = packet
        lying[1] &+= 3
        client.send(lying)
        client.send(packet + packet)
        var badIMEI = packet
        badIMEI[9] = UInt8(ascii: "A")
        client.send(badIMEI)
        #expect(client.receive(timeoutMs: 700) == nil)
        #expect(try d.fleetctl("positions", ["--device", imei]).count == 2)
        #expect(d.notify.waitFor("teltonika/bad_length", timeout: 5) != nil)
        #expect(d.stop() == 0)
        #expect(d.log.contains("bad_imei"))
    }

    @Test func nmeaWithIdentitySentenceOrConfiguredAddress() throws {
        let d = try DaemonProcess(
            fences: depotFences, extraConfig: "[nmea.devices]\n\"127.0.0.1\" = \"gps-mapped\"\n")
        let port = d.ports["nmea"]!
        // One datagram: identity, RMC and GGA of the same second, and a corrupted sentence beside them.
        let day = "211126"
        let one = [
            NMEAEncoder.checksummed("$PFLID,boat-7"),
            NMEAEncoder.checksummed(
                "$GPRMC,101500.00,A,4803.000,N,01103.000,E,010.0,045.0,\(day),,,A"),
            NMEAEncoder.checksummed(
                "$GPGGA,101500.00,4803.000,N,01103.000,E,1,09,0.8,512.3,M,47.0,M,,"),
            "$GPRMC,101501.00,A,4803.000,N,01103.000,E,010.0,045.0,\(day),,,A*00",
        ].joined(separator: "\r\n")
        let c1 = try UDPClient(host: "127.0.0.1", port: port)
        c1.send(Array(one.utf8))
        let boat = try waitForPositions(d, "boat-7", count: 1)
        #expect(boat.count == 1)
        #expect(boat.first?["sats"] as? Int == 9 && boat.first?["alt_m"] as? Double == 512.3)
        #expect(boat.first?["hdop"] as? Double == 0.8 && boat.first?["fix_quality"] as? Int == 1)
        #expect(abs((boat.first?["speed_kmh"] as? Double ?? 0) - 18.52) < 1e-9)
        #expect(boat.first?["time"] as? String == "2026-11-21T10:15:00.000Z")

        // gps2udp's way: one sentence per datagram, from an ephemeral port, identified by address.
        let c2 = try UDPClient(host: "127.0.0.1", port: port)
        c2.send(
            Array(
                NMEAEncoder.checksummed(
                    "$GNGGA,101600.00,4806.000,N,01106.000,E,1,12,0.6,500.0,M,47.0,M,,"
                ).utf8))
        c2.send(
            Array(
                NMEAEncoder.checksummed(
                    "$GNRMC,101600.00,A,4806.000,N,01106.000,E,000.5,,\(day),,,A,V"
                ).utf8))
        c2.send(
            Array(
                NMEAEncoder.checksummed(
                    "$GNRMC,101601.00,V,4806.000,N,01106.000,E,000.5,,\(day),,,N,V"
                ).utf8))
        let mapped = try waitForPositions(d, "gps-mapped", count: 2)
        #expect(mapped.count == 2)
        #expect(mapped.first?["sats"] as? Int == 12)
        #expect(mapped.map { $0["valid"] as? Bool } == [true, false])
        #expect(d.notify.waitFor("nmea/bad_checksum", timeout: 5) != nil)
        #expect(d.stop() == 0)
    }
}
