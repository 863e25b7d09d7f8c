import FleetConfig
import FleetModel
import FleetProtocols
import FleetTracking
import Foundation
import Logging
import Testing

@testable import FleetDaemon

/// The door with each wire format: screening, unknown devices, replies.
@Suite struct DoorTests {
    /// A UDP socket to route replies through (bound on loopback, port chosen by the kernel).
    static let socket = try! UDPSocket(
        binding: ListenAddress(host: "127.0.0.1", port: 0), receiveBuffer: 65536)

    let now: Int64 = 1_700_000_100_000

    func door(registered: Set<String>? = nil) -> Door {
        Door(
            queue: InboundQueue(capacity: 100), metrics: Metrics(),
            screen: ScreenPolicy(futureMarginMs: 60_000, maxSpeedKmh: 500),
            logger: Logger(label: "test"), rejectLogPerSecond: 0, registered: registered)
    }

    /// `bytes` as a datagram from 192.0.2.1:9, answered by datagram: the
    /// arrival, or nil when it is refused whole.
    func admit(_ door: Door, _ format: any WireFormat, _ bytes: [UInt8]) -> Arrival? {
        bytes.withUnsafeBufferPointer { b in
            let d = format.decode(
                b, sender: { WireSender(text: "192.0.2.1:9", ip: "192.0.2.1") }, nowMs: now)
            let peer = Self.peer
            let admission = door.admit(
                d, format: format, bytes: b, from: .datagram(peer),
                answer: .datagram(ReplyRoute(socket: Self.socket, address: peer)),
                receivedMs: now)
            guard case .admitted(let arrival) = admission else { return nil }
            return arrival
        }
    }

    static var peer: PeerAddress {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(9).bigEndian
        a.sin_addr.s_addr = inet_addr("192.0.2.1")
        return withUnsafeBytes(of: &a) {
            PeerAddress(raw: $0.baseAddress!, length: MemoryLayout<sockaddr_in>.size)
        }
    }

    /// Whether `a` is answered by datagram.
    func byDatagram(_ a: Arrival) -> Bool {
        if case .datagram = a.ack { return true }
        return false
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
        #expect(byDatagram(d) && d.replySocket === Self.socket)
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
        #expect(d.reply == nil && !byDatagram(d))
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
        // A 1994 fix is screened out as ancient: nothing is queued, nothing
        // owed, so the datagram is refused whole.
        #expect(admit(door, format, Array("\(pflid)\r\n\(rmc)\r\n\(gga)\r\n".utf8)) == nil)
        #expect(door.metrics.snapshot().rejects["nmea/ancient_time"] == 1)
    }

    /// An HTTP request (OsmAnd) as `DaemonAPI.ingest` hands it in.
    func request(_ door: Door, _ query: String, waiter: CommitWaiter) -> Admission {
        let format = OsmAndWireFormat()
        let d = format.decode(query: query, body: [], json: false, nowMs: now)
        return door.admit(
            d, format: format, bytes: nil, from: .request("192.0.2.7"), answer: .waiter(waiter),
            receivedMs: now)
    }

    @Test func anOsmAndRequestGoesThroughTheSameDoorAndKeepsItsWaiter() async throws {
        let door = door(registered: ["phone-1"])
        let waiter = CommitWaiter()
        guard
            case .admitted(let a) = request(
                door, "id=phone-1&lat=48.1&lon=11.5&timestamp=\(now / 1000)", waiter: waiter)
        else { Issue.record("refused"); return }
        #expect(a.fixes.map(\.device) == ["phone-1"] && a.reply == nil)
        guard case .waiter(let w) = a.ack else { Issue.record("not a waiter"); return }
        #expect(w === waiter)
        #expect(door.offer([a], proto: "osmand") == 1)
        // The reply sink's part: the commit wakes the request.
        a.ack.committed()
        #expect(await waiter.wait(timeoutS: 1))
    }

    @Test func anOsmAndRequestIsRefusedWithTheReasonTheStatusNeeds() {
        let door = door(registered: ["phone-1"])
        guard
            case .refused(let unknown, _) = request(
                door, "id=stranger&lat=48.1&lon=11.5", waiter: CommitWaiter())
        else { Issue.record("admitted"); return }
        #expect(unknown == .unknownDevice)
        guard
            case .refused(let bad, let detail) = request(
                door, "id=phone-1&lat=48.1", waiter: CommitWaiter())
        else { Issue.record("admitted"); return }
        #expect(bad == .missingField && detail.contains("lon"))
        let later = (now + 3_600_000) / 1000
        guard
            case .refused(let future, _) = request(
                door, "id=phone-1&lat=48.1&lon=11.5&timestamp=\(later)", waiter: CommitWaiter())
        else { Issue.record("admitted"); return }
        #expect(future == .futureTime)
        let rejects = door.metrics.snapshot().rejects
        #expect(rejects["osmand/unknown_device"] == 1 && rejects["osmand/missing_field"] == 1)
        #expect(rejects["osmand/future_time"] == 1)
    }

    @Test func whatDoesNotFitTheQueueIsShedAndCounted() {
        let door = Door(
            queue: InboundQueue(capacity: 1), metrics: Metrics(),
            screen: ScreenPolicy(futureMarginMs: 60_000, maxSpeedKmh: 500),
            logger: Logger(label: "test"), rejectLogPerSecond: 0)
        let fix = Fix(device: "a", time: now, lat: 48.1, lon: 11.5)
        let a = Arrival(fixes: [fix], reply: nil, ack: .none, receivedMs: now)
        #expect(door.offer([a, a, a], proto: "json") == 1)
        #expect(door.metrics.snapshot().rejects["json/overload"] == 2)
    }
}
