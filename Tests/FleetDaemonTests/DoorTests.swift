import FleetProtocols
import FleetTracking
import Logging
import Testing

@testable import FleetDaemon

/// The door with each wire format: screening, unknown devices, replies.
@Suite struct DoorTests {
    let now: Int64 = 1_700_000_100_000

    func door(registered: Set<String>? = nil) -> Door {
        Door(
            queue: InboundQueue(capacity: 100), metrics: Metrics(),
            screen: ScreenPolicy(futureMarginMs: 60_000, maxSpeedKmh: 500),
            logger: Logger(label: "test"), rejectLogPerSecond: 0, registered: registered)
    }

    func admit(_ door: Door, _ format: any WireFormat, _ bytes: [UInt8]) -> InboundDatagram? {
        bytes.withUnsafeBufferPointer { b in
            let d = format.decode(
                b, sender: { WireSender(text: "192.0.2.1:9", ip: "192.0.2.1") }, nowMs: now)
            return door.admit(
                d, format: format, bytes: b, peer: nil, route: nil, receivedMs: now)
        }
    }

    func jsonLine(_ seq: Int, _ device: String, _ time: Int64) -> String {
        #"{"device":"\#(device)","time":\#(time),"lat":48.1,"lon":11.5,"seq":\#(seq)}"#
    }

    @Test func jsonFixesFromTheFutureAreRefusedAndNamedInTheReply() throws {
        let door = door()
        let text = [
            jsonLine(1, "a", now), jsonLine(2, "a", now + 3_600_000), jsonLine(3, "a", now),
        ]
        .joined(separator: "\n")
        let d = try #require(admit(door, JSONWireFormat(), Array(text.utf8)))
        #expect(d.fixes.count == 2)
        let bytes = try #require(d.reply).bytes
        let reply = try #require(JSONReply.parse(bytes))
        #expect(reply == JSONReply(acked: [1, 3], rejected: [(2, .futureTime)]))
        #expect(door.metrics.snapshot().rejects["json/future_time"] == 1)
    }

    @Test func jsonFromUnknownDevicesIsRefusedLineByLine() throws {
        let door = door(registered: ["a"])
        let text = [jsonLine(1, "a", now), jsonLine(2, "b", now)].joined(separator: "\n")
        let d = try #require(admit(door, JSONWireFormat(), Array(text.utf8)))
        #expect(d.fixes.map(\.device) == ["a"])
        let bytes = try #require(d.reply).bytes
        let reply = try #require(JSONReply.parse(bytes))
        #expect(reply == JSONReply(acked: [1], rejected: [(2, .unknownDevice)]))
    }

    @Test func aKnownDevicesFixIsKeptBesideAnUnknownOneWhenNoReplyIsOwed() throws {
        // No `seq`: the sender asked for no reply, so none is owed either way.
        let text = [
            #"{"device":"a","time":\#(now),"lat":48.1,"lon":11.5}"#,
            #"{"device":"b","time":\#(now),"lat":48.1,"lon":11.5}"#,
        ].joined(separator: "\n")
        let d = try #require(admit(door(registered: ["a"]), JSONWireFormat(), Array(text.utf8)))
        #expect(d.fixes.map(\.device) == ["a"])
        #expect(d.reply == nil && d.replyTo == nil)
    }

    @Test func teltonikaIsAcknowledgedWholeButNotForAnUnknownDevice() throws {
        let bytes = TeltonikaEncoder.udp(
            avlPacketId: 3, imei: "356307042441013",
            records: [
                .init(time: now, lat: 48.1, lon: 11.5),
                .init(time: now + 3_600_000, lat: 48.1, lon: 11.5),
            ])
        let taken = try #require(admit(door(), TeltonikaWireFormat(), bytes))
        #expect(taken.fixes.count == 1)  // the future record is screened out ...
        #expect(taken.reply?.bytes.last == 2)  // ... and still acknowledged
        #expect(admit(door(registered: ["other"]), TeltonikaWireFormat(), bytes) == nil)
    }

    @Test func nmeaNeedsAnIdentityAndOwesNoReply() throws {
        let rmc = NMEAEncoder.checksummed(
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        let gga = NMEAEncoder.checksummed(
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let pflid = NMEAEncoder.checksummed("$PFLID,boat-7")
        let format = NMEAWireFormat()
        let door = door()
        #expect(admit(door, format, Array("\(rmc)\r\n\(gga)\r\n".utf8)) == nil)
        #expect(door.metrics.snapshot().rejects["nmea/unknown_device"] == 1)
        // A 1994 fix is screened out as ancient: nothing is queued, nothing owed.
        let d = try #require(admit(door, format, Array("\(pflid)\r\n\(rmc)\r\n\(gga)\r\n".utf8)))
        #expect(d.fixes.isEmpty)
        #expect(d.reply == nil && d.replyTo == nil)
        #expect(door.metrics.snapshot().rejects["nmea/ancient_time"] == 1)
    }
}
