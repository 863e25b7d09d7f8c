import FleetSimCore
import FleetTestSupport
import Foundation
import Synchronization
import Testing

/// The live event stream as a dashboard uses it: alerts as they are
/// committed, the stream ended cleanly when fleetd stops, and after a
/// restart a reconnect with `Last-Event-ID` gets every alert it missed, then
/// the live ones, none twice.
@Suite(.offPool) struct EventStreamEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    /// Holds two streams open and asks for a third: true when it is refused
    /// with 503 and `Retry-After`. Tried up to 5 times (a stream the server
    /// ended meanwhile frees its place).
    func thirdStreamIsRefused(_ api: HTTPTestClient, _ auth: [(String, String)]) async throws
        -> Bool
    {
        let port = Int(api.base.split(separator: ":").last!)!
        for _ in 0..<5 {
            let deadline = Date().addingTimeInterval(10)
            // A failed attempt (a place not yet freed, a slow answer) is tried again.
            guard let one = try? EventSocket(port: port, path: "/api/v1/events", headers: auth),
                let two = try? EventSocket(port: port, path: "/api/v1/events", headers: auth),
                (try? await one.head(deadline: deadline)) == 200,
                (try? await two.head(deadline: deadline)) == 200,
                let third = try? EventSocket(port: port, path: "/api/v1/events", headers: auth)
            else {
                try await Task.sleep(for: .seconds(1))
                continue
            }
            if (try? await third.head(deadline: deadline)) == 503,
                third.rest().contains("too many streams")
            {
                return true
            }
            try await Task.sleep(for: .seconds(1))
        }
        return false
    }

    func crossing(_ client: UDPClient, from seq: Int, at t: Int64) {
        for (k, lat) in [47.95, 48.05, 48.15].enumerated() {
            _ = exchange(client, [fixLine(seq + k, t + Int64(k) * 10_000, lat: lat, lon: 11.05)])
        }
    }

    /// The devices of the `positions` or `positions_compact` batches seen.
    static func devices(_ seen: [SSEEvent], in event: String) -> Set<String> {
        let batches = seen.filter { $0.event == event }
        let positions = event == "positions" ? batches.flatMap(decode) : batches.flatMap(rows)
        return Set(positions.compactMap { $0["device"] as? String })
    }

    /// A fix from each of `devices` (in datagrams of at most 50) every
    /// `every`, until `done()` or after `rounds` rounds.
    func keepReporting(
        _ client: UDPClient, _ devices: [String], every: Duration, rounds: Int64,
        until done: () -> Bool
    ) async throws {
        var round: Int64 = 0
        while !done(), round < rounds {
            for part in stride(from: 0, to: devices.count, by: 50) {
                let lines = devices[part..<min(part + 50, devices.count)].enumerated().map {
                    k, d in
                    fixLine(
                        Int(round) + 1, t0 + round * 1000, lat: 47.5 + Double(part + k) * 0.001,
                        lon: 11.5, device: d)
                }
                #expect(exchange(client, lines) != nil)
            }
            round += 1
            try await Task.sleep(for: every)
        }
    }

    /// A `positions` event's array.
    static func decode(_ e: SSEEvent) -> [[String: Any]] {
        ((try? JSONSerialization.jsonObject(with: Data(e.data.utf8))) as? [[String: Any]]) ?? []
    }

    /// A `positions_compact` event's rows, as objects by its `fields`.
    static func rows(_ e: SSEEvent) -> [[String: Any]] {
        guard let fields = e.json["fields"] as? [String], let rows = e.json["rows"] as? [[Any]]
        else { return [] }
        return rows.map { Dictionary(uniqueKeysWithValues: zip(fields, $0)) }
    }

    /// The alert ids of `alert` events and of `alerts_compact` rows, in order.
    static func alertIds(_ events: [SSEEvent]) -> [Int] {
        events.flatMap { e -> [Int] in
            switch e.event {
            case "alert": [Int(e.id ?? "") ?? -1]
            case "alerts_compact": rows(e).map { $0["id"] as? Int ?? -1 }
            default: []
            }
        }
    }

    @Test func positionsInBatchesForTheWholeFleet() async throws {
        let a = try APIEndToEndTests.APIDaemon()
        let auth = a.auth("viewer")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let finished = Mutex(0)
        let finish: @Sendable () -> Void = { finished.withLock { $0 += 1 } }
        let devices = ["truck-1", "truck-2", "truck-3"]
        let http = a.http
        // Every device's position in `positions` events (arrays), none one by one.
        async let batched = http.events(
            "/api/v1/events?positions=batch", headers: auth, timeout: 180
        ) { seen in
            let got = Self.devices(seen, in: "positions")
            if got.count == 3 { finish() }
            return got.count < 3
        }
        // Compact: the same positions as rows, read by `fields`.
        async let compacted = http.events(
            "/api/v1/events?positions=compact", headers: auth, timeout: 180
        ) { seen in
            let got = Self.devices(seen, in: "positions_compact")
            if got.count == 3 { finish() }
            return got.count < 3
        }
        // With a device filter, batch gives that device's `position` events as before.
        async let one = http.events(
            "/api/v1/events?positions=batch&device=truck-2", headers: auth, timeout: 180
        ) { seen in
            let done = seen.contains { $0.event == "position" }
            if done { finish() }
            return !done
        }
        // Fixes keep coming (a fleet does) until both streams have what they wait for,
        // so the test does not depend on when the streams subscribed. The
        // streams wait up to 3 minutes: with the whole suite on two cores
        // this test has taken 135–182 s, and once 315 s.
        try await keepReporting(client, devices, every: .milliseconds(300), rounds: 200) {
            finished.withLock { $0 } >= 3
        }
        let (status, events) = try await batched
        #expect(status == 200)
        #expect(!events.contains { $0.event == "position" })
        let positions = events.filter { $0.event == "positions" }.flatMap(Self.decode)
        #expect(Set(positions.compactMap { $0["device"] as? String }) == Set(devices))
        #expect(positions.allSatisfy { $0["lat"] is Double && $0["time"] is String })
        let (compactStatus, compact) = try await compacted
        #expect(compactStatus == 200)
        #expect(!compact.contains { $0.event == "position" || $0.event == "positions" })
        let rows = compact.filter { $0.event == "positions_compact" }.flatMap(Self.rows)
        #expect(Set(rows.compactMap { $0["device"] as? String }) == Set(devices))
        #expect(rows.allSatisfy { $0["lat"] is Double && ($0["time_ms"] as? Int ?? 0) >= t0 })
        let (oneStatus, single) = try await one
        #expect(oneStatus == 200)
        let singles = single.filter { $0.event == "position" }
        #expect(
            !singles.isEmpty && singles.allSatisfy { $0.json["device"] as? String == "truck-2" })
        #expect(!single.contains { $0.event == "positions" })
        let bad = try await a.http.get("/api/v1/events?positions=sometimes", auth)
        #expect(bad.status == 400 && bad.body.contains("on, off, batch or compact"))
        let badAlerts = try await a.http.get("/api/v1/events?alerts=batch", auth)
        #expect(badAlerts.status == 400 && badAlerts.body.contains("on, off or compact"))
        #expect(a.d.stop() == 0)
    }

    /// `http.stream_positions_per_s` as configured: 300 vehicles through a
    /// fleetd allowed 100 positions a second reach a console all, in
    /// batches of at most 100 rows.
    @Test func aFleetPastThePositionBudgetReachesTheConsoleInTurns() async throws {
        let a = try APIEndToEndTests.APIDaemon(httpExtra: "stream_positions_per_s = 100")
        let auth = a.auth("viewer")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let devices = (0..<300).map { "van-\($0)" }
        let finished = Mutex(false)
        let http = a.http
        async let compacted = http.events(
            "/api/v1/events?positions=compact", headers: auth, timeout: 180
        ) { seen in
            let got = Self.devices(seen, in: "positions_compact")
            if got.count == devices.count { finished.withLock { $0 = true } }
            return got.count < devices.count
        }
        // Every vehicle reports once a second until the console has seen them all.
        try await keepReporting(client, devices, every: .seconds(1), rounds: 120) {
            finished.withLock { $0 }
        }
        let (status, events) = try await compacted
        #expect(status == 200)
        let batches = events.filter { $0.event == "positions_compact" }.map(Self.rows)
        #expect(Set(batches.joined().compactMap { $0["device"] as? String }) == Set(devices))
        #expect(batches.allSatisfy { $0.count <= 100 }, "\(batches.map(\.count))")
        #expect(a.d.stop() == 0)
    }

    @Test func alertsLiveThenCaughtUpAcrossARestart() async throws {
        let a = try APIEndToEndTests.APIDaemon(httpExtra: "max_streams = 2\nkeepalive_s = 1")
        let auth = a.auth("viewer")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let api = a.http
        // http.max_streams: with two streams open, a third gets 503. (The
        // server frees a closed stream's place at its next write: within
        // keepalive_s, 1 s here; the streams below retry meanwhile.)
        #expect(try await thirdStreamIsRefused(api, auth))
        let open = Mutex(0)
        let opened: @Sendable () -> Void = { open.withLock { $0 += 1 } }
        // Live: the stream sees the enter and the exit as they are committed
        // (a dashboard's EventSource reconnects with Last-Event-ID if the stream ends).
        // Generous bounds: under the whole suite's load a stream can take
        // seconds to find a free place.
        async let live = api.events(
            "/api/v1/events", headers: auth, timeout: 40, retries: 80, reconnect: true,
            opened: opened
        ) {
            seen in
            seen.filter { $0.event == "alert" }.count < 2
                || !seen.contains { $0.event == "position" }
        }
        async let alertsOnly = api.events(
            "/api/v1/events?type=geofence_exit&positions=off", headers: auth, timeout: 40,
            retries: 80, reconnect: true, opened: opened
        ) { seen in seen.isEmpty }
        let deadline = Date().addingTimeInterval(30)
        while open.withLock({ $0 }) < 2, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(open.withLock { $0 } >= 2, "the streams did not open in 30 s")
        crossing(client, from: 1, at: t0)
        let (status, events) = try await live
        #expect(status == 200, "\(events.first?.data ?? "")")
        let alerts = events.filter { $0.event == "alert" }
        #expect(alerts.map(\.id) == ["1", "2"])
        #expect(alerts.map { $0.json["type"] as? String } == ["geofence_enter", "geofence_exit"])
        #expect(
            events.contains { $0.event == "position" && $0.json["device"] as? String == "truck-1" })
        let (filteredStatus, filtered) = try await alertsOnly
        #expect(filteredStatus == 200, "\(filtered.first?.data ?? "")")
        #expect(filtered.map(\.event) == ["alert"], "\(filtered.map(\.data))")
        #expect(filtered.first?.json["type"] as? String == "geofence_exit")

        // fleetd stops with a stream open: the stream ends, the stop is clean.
        let connected = Mutex(false)
        async let ending = api.events(
            "/api/v1/events", headers: auth, timeout: 30,
            opened: { connected.withLock { $0 = true } }
        ) { _ in true }
        let deadline2 = Date().addingTimeInterval(10)
        while !connected.withLock({ $0 }), Date() < deadline2 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let stopped = a.d.stop()
        #expect(stopped == 0, "fleetd's log:\n\(a.d.log)")
        _ = try await ending

        // While no client is connected, two more alerts after a restart.
        let b = try DaemonProcess(
            fences: depotFences, dir: a.d.dir,
            tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0",
            http: "127.0.0.1:0", osmand: "")
        let http = HTTPTestClient(port: b.ports["http"] ?? 0)
        let client2 = try UDPClient(host: "127.0.0.1", port: b.port)
        crossing(client2, from: 10, at: t0 + 100_000)
        // The reconnect: missed alerts from the database, then live ones, none twice.
        // Each stream counts as caught up once it has the four missed alerts
        // (the crossing and the two the restart's gap implies); the next
        // crossing waits for both, so its alerts come live.
        let caughtUp = Mutex(Set<String>())
        let mark: @Sendable (String) -> Void = { name in caughtUp.withLock { _ = $0.insert(name) } }
        async let resumed = http.events(
            "/api/v1/events?positions=off", headers: auth + [("Last-Event-ID", "2")], timeout: 15
        ) { seen in
            if seen.count >= 4 { mark("one by one") }
            return seen.count < 4
        }
        // The same with live alerts batched: caught up one by one, then rows.
        async let resumedCompact = http.events(
            "/api/v1/events?positions=off&alerts=compact", headers: auth + [("Last-Event-ID", "2")],
            timeout: 15
        ) { seen in
            if Self.alertIds(seen).count >= 4 { mark("compact") }
            return Self.alertIds(seen).count < 6
        }
        let deadline3 = Date().addingTimeInterval(10)
        while caughtUp.withLock({ $0.count }) < 2, Date() < deadline3 {
            try await Task.sleep(for: .milliseconds(20))
        }
        crossing(client2, from: 20, at: t0 + 200_000)
        let after = try await resumed.events
        #expect(after.map(\.id) == ["3", "4", "5", "6"])
        #expect(
            after.map { $0.json["type"] as? String } == [
                "geofence_enter", "geofence_exit", "geofence_enter", "geofence_exit",
            ])
        let compact = try await resumedCompact.events
        #expect(Self.alertIds(compact) == [3, 4, 5, 6, 7, 8], "\(compact.map(\.data))")
        #expect(compact.prefix(4).map(\.event) == ["alert", "alert", "alert", "alert"])
        let batches = compact.filter { $0.event == "alerts_compact" }
        #expect(!compact.dropFirst(4).contains { $0.event == "alert" })
        // A batch's SSE id is its last alert's: what a reconnect resumes after.
        #expect(batches.last?.id == "8")
        #expect(
            batches.flatMap(Self.rows).map { $0["type"] as? String } == [
                "geofence_enter", "geofence_exit",
            ])
        #expect(b.stop() == 0)
    }
}
