import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Trips, odometers and silence through the real daemon, and tracking that
/// continues exactly across a crash.
@Suite(.serialized, .offPool) struct TripsEndToEndTests {
    static var zones: String {
        get throws {
            try String(
                contentsOf: Binaries.packageRoot.appendingPathComponent("config/geofences.geojson"),
                encoding: .utf8)
        }
    }

    /// Route t01 as JSON lines, followed by five minutes parked at its end.
    static func t01Lines() throws -> [String] {
        let route = try RouteFile.load(
            Binaries.packageRoot.appendingPathComponent("Simulator/routes/t01_munich_car_1hz.csv")
                .path, device: "car-7")
        var points = route.points
        let last = points[points.count - 1]
        for k in 1...30 {
            var p = last
            p.time += Int64(k) * 10_000
            points.append(p)
        }
        return points.enumerated().map { i, p in
            FixEncoder.json(device: "car-7", point: p, seq: Int64(i + 1))
        }
    }

    /// Sends `lines` 20 per datagram, each datagram acknowledged in full before the next.
    static func send(_ lines: ArraySlice<String>, to d: DaemonProcess) throws {
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        var i = lines.startIndex
        while i < lines.endIndex {
            let chunk = Array(lines[i..<min(i + 20, lines.endIndex)])
            var reply: JSONReply?
            for _ in 0..<5 where reply == nil { reply = exchange(client, chunk) }
            guard let reply, reply.acked.count == chunk.count else {
                throw E2EError("lines from \(i): reply \(String(describing: reply)); \(chunk[0])")
            }
            i += 20
        }
    }

    /// Alerts without their ids, and trips without theirs: what must not change.
    static func outcome(_ d: DaemonProcess) throws -> ([String], [String]) {
        func strip(_ o: [String: Any]) -> String {
            var o = o
            o["id"] = nil
            let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return (try d.fleetctl("alerts").map(strip), try d.fleetctl("trips").map(strip))
    }

    @Test func aCrashInTheMiddleOfARouteChangesNoAlertAndNoTrip() throws {
        let lines = try Self.t01Lines()
        let whole = try DaemonProcess(fences: try Self.zones, tracking: "", trip: "")
        try Self.send(lines[...], to: whole)
        let expected = try Self.outcome(whole)
        let trips = try whole.fleetctl("trips")
        #expect(whole.stop() == 0)

        // The managers' view of the trip.
        #expect(trips.count == 1)
        let trip = try #require(trips.first)
        #expect(trip["device"] as? String == "car-7")
        #expect(trip["start_time"] as? String == "2014-09-10T04:54:13.000Z")
        let distance = try #require(trip["distance_m"] as? Double)
        #expect(abs(distance - 13_203.1) / 13_203.1 < 0.01)
        for key in [
            "end_time", "start_lat", "start_lon", "end_lat", "end_lon", "start_fence", "end_fence",
            "duration_s", "max_speed_kmh", "avg_speed_kmh", "fixes",
        ] {
            #expect(trip.keys.contains(key), "trips --json lacks \(key)")
        }
        let types = expected.0.compactMap { line in
            ["trip_start", "trip_end", "geofence_enter", "geofence_exit"].first {
                line.contains("\"type\":\"\($0)\"")
            }
        }
        #expect(types.first == "trip_start" && types.last == "trip_end")
        #expect(types.filter { $0 == "geofence_enter" }.count == 2)

        // Again, with fleetd killed (SIGKILL) twice along the way.
        let first = try DaemonProcess(fences: try Self.zones, tracking: "", trip: "")
        try Self.send(lines[..<400], to: first)
        first.crash()
        let second = try DaemonProcess(
            fences: try Self.zones, dir: first.dir, tracking: "", trip: "")
        try Self.send(lines[400..<800], to: second)
        second.crash()
        let third = try DaemonProcess(
            fences: try Self.zones, dir: first.dir, tracking: "", trip: "")
        // The device resends what it had sent last (an unacknowledged datagram, say).
        try Self.send(lines[780..<lines.count], to: third)
        let got = try Self.outcome(third)
        #expect(got.0 == expected.0)
        #expect(got.1 == expected.1)
        let human = try runTool(
            try Binaries.path("fleetctl"), ["trips", "--db", third.database, "--device", "car-7"])
        #expect(human.status == 0 && human.out.contains("13.1"), "\(human.out)")
        // The odometer is part of the state the crashes made fleetd replay;
        // a clean stop writes every state (while running it is checkpointed).
        #expect(third.stop() == 0)
        let devices = try third.fleetctl("devices")
        let odometer = try #require(devices.first?["odometer_m"] as? Double)
        #expect(abs(odometer - distance) < 1)
    }

    /// `fleetctl trips --open`: the trip under way, from the checkpointed
    /// state, as the API lists it (`open`, no id, no end fence).
    @Test func theTripUnderWayIsListedByFleetctl() throws {
        let lines = try Self.t01Lines()
        let d = try DaemonProcess(fences: try Self.zones, tracking: "", trip: "")
        try Self.send(lines[..<400], to: d)
        #expect(d.stop() == 0)  // a clean stop writes every state
        let open = try d.fleetctl("trips", ["--open"])
        #expect(open.count == 1, "\(open)")
        let t = try #require(open.first)
        #expect(t["open"] as? Bool == true && t["id"] is NSNull && t["end_fence"] is NSNull)
        #expect(t["device"] as? String == "car-7")
        #expect(t["start_time"] as? String == "2014-09-10T04:54:13.000Z")
        #expect((t["distance_m"] as? Double ?? 0) > 1000)
        #expect(try d.fleetctl("trips").isEmpty)  // none finished yet
        #expect(try d.fleetctl("trips", ["--open", "--device", "nobody"]).isEmpty)
        let human = try runTool(
            try Binaries.path("fleetctl"), ["trips", "--open", "--db", d.database])
        #expect(human.status == 0 && human.out.contains("(under way)"), "\(human.out)")
    }

    /// A device's backlog (fixes received long after their time) is
    /// tracked, its alerts dated at the fixes' times and flagged
    /// `backlog`; the same drive sent as it happens raises them unflagged.
    @Test func aBacklogsAlertsKeepTheirTimesAndSaySo() throws {
        let lines = try Self.t01Lines()
        // Ten minutes of 1 Hz fixes sent at once: the oldest is 600 s old.
        let d = try DaemonProcess(
            fences: try Self.zones, tracking: "backlog_after_s = 900", trip: "")
        try Self.send(lines[..<600], to: d)  // recorded in 2014
        // The same fixes as if sent live: moved to end a second ago.
        let route = try RouteFile.load(
            Binaries.packageRoot.appendingPathComponent("Simulator/routes/t01_munich_car_1hz.csv")
                .path, device: "car-8")
        let shift = WallClock.system.nowMs() - 1000 - route.points[599].time
        let live = route.points[..<600].enumerated().map { i, p in
            var q = p
            q.time += shift
            return FixEncoder.json(device: "car-8", point: q, seq: Int64(i + 1))
        }
        try Self.send(live[...], to: d)
        let alerts = try d.fleetctl("alerts").filter {
            ($0["type"] as? String)?.hasPrefix("geofence") == true
        }
        let old = alerts.filter { $0["device"] as? String == "car-7" }
        let now = alerts.filter { $0["device"] as? String == "car-8" }
        #expect(!old.isEmpty && old.count == now.count, "\(alerts)")
        #expect(old.allSatisfy { $0["backlog"] as? Bool == true }, "\(old)")
        #expect(now.allSatisfy { $0["backlog"] == nil }, "\(now)")
        // Dated at the fixes' own times (2014), the same alerts as live.
        #expect(old.allSatisfy { ($0["time"] as? String)?.hasPrefix("2014-09-10T") == true })
        #expect(
            old.map { "\($0["type"] ?? "") \($0["fence"] ?? "")" }
                == now.map { "\($0["type"] ?? "") \($0["fence"] ?? "")" })
        #expect(d.stop() == 0)
    }

    @Test func aSilentDeviceIsReportedAndItsReturnToo() throws {
        let d = try DaemonProcess(fences: nil, tracking: "silent_after_s = 1")
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        let t0 = WallClock.system.nowMs() - 60_000
        #expect(exchange(client, [fixLine(1, t0, lat: 48.05, lon: 11.05)])?.acked == [1])
        var types: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !types.contains("device_silent") {
            Thread.sleep(forTimeInterval: 0.2)
            types = try d.fleetctl("alerts").compactMap { $0["type"] as? String }
        }
        #expect(types == ["device_silent"])
        #expect(try d.fleetctl("devices").first?["silent"] as? Bool == true)
        #expect(exchange(client, [fixLine(2, t0 + 30_000, lat: 48.05, lon: 11.05)])?.acked == [2])
        let alerts = try d.fleetctl("alerts")
        #expect(alerts.map { $0["type"] as? String } == ["device_silent", "device_back"])
        #expect(alerts.last?["silent_s"] as? Double == 30)
        #expect(d.stop() == 0)
    }
}
