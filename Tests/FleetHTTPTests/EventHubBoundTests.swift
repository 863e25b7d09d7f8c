import FleetModel
import FleetStorage
import Foundation
import Testing

@testable import FleetHTTP

/// The hub's two bounds: a stream more than `http.stream_buffer` events
/// behind is ended (slow), and when the hub itself falls 2 × that behind
/// (its rounds starved while ingest takes every core) its queue is dropped
/// and every open stream ended (behind), so memory stays bounded however
/// long a storm lasts. Positions are not queued but held by device: no
/// stream ends for them, and each device's newest arrives.
@Suite struct EventHubBoundTests {
    static func alerts(_ ids: ClosedRange<Int64>) -> [AlertRecord] {
        ids.map {
            AlertRecord(
                id: $0, time: 1_700_000_000_000 + $0, device: "truck-\($0 % 7)", type: "enter",
                fence: "depot", lat: 52.5, lon: 13.4, details: nil)
        }
    }

    /// The chunks a stream got until it ended (waits at most ~5 s).
    static func drain(_ events: AsyncStream<LiveChunk>) async -> [LiveChunk] {
        await within(seconds: 5) {
            var got: [LiveChunk] = []
            for await chunk in events { got.append(chunk) }
            return got
        } ?? []
    }

    @Test func aHubTooFarBehindDropsItsQueueAndEndsEveryStream() async throws {
        // buffer 16: the queue holds at most 32 alerts. No `run()`: the hub is starved.
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 16, keepaliveS: 15)
        let a = try hub.subscribe(EventFilter(), owner: "user:a").get()
        let b = try hub.subscribe(EventFilter(positions: false), owner: "user:b").get()
        hub.publish(alerts: Self.alerts(1...20), positions: [])
        hub.publish(alerts: Self.alerts(21...32), positions: [])
        #expect(hub.counts == EventHub.Counts(open: 2, endedSlow: 0, endedBehind: 0))
        // One more event passes the bound.
        hub.publish(alerts: Self.alerts(33...33), positions: [])
        #expect(hub.counts == EventHub.Counts(open: 0, endedSlow: 0, endedBehind: 2))
        // Both streams end (nothing was fanned out), so their clients reconnect and catch up.
        #expect(await Self.drain(a.events).isEmpty)
        #expect(await Self.drain(b.events).isEmpty)

        // A stream opened afterwards gets what commits from then on.
        let c = try hub.subscribe(EventFilter(positions: false), owner: "user:c").get()
        let running = Task { await hub.run() }
        hub.publish(alerts: Self.alerts(34...42), positions: [])
        var ids: [Int64] = []
        for await chunk in c.events {
            ids += chunk.events.filter { $0.kind == .alert }.map(\.id)
            c.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
            if ids.count >= 9 { break }
        }
        #expect(ids == Array(34...42))
        hub.close()
        await running.value
    }

    /// A hub of `buffer` 16 (32 alerts queued at most) allowing 100 rows a
    /// second, and a console's stream on it (`alerts=compact`).
    static func hubWithAConsole() throws -> (
        EventHub, (subscriber: EventHub.Subscriber, events: AsyncStream<LiveChunk>)
    ) {
        let hub = EventHub(
            maxStreams: 10, maxPerOwner: 10, buffer: 16, keepaliveS: 15, alertsPerS: 100)
        let console = try hub.subscribe(
            EventFilter(positions: false, compactAlerts: true), owner: "user:a"
        ).get()
        return (hub, console)
    }

    /// `alerts(ids)`, those for which `alarm` says so as `device_alarm`.
    static func alerts(_ ids: ClosedRange<Int64>, alarm: (Int64) -> Bool) -> [AlertRecord] {
        alerts(ids).map { a in
            var a = a
            if alarm(a.id) { a.type = "device_alarm" }
            return a
        }
    }

    /// A hub behind with a console among its streams (`alerts=compact`):
    /// the queue keeps what the console's round would send (the alarm and
    /// the newest others), the rest counted in its `skipped`; the stream
    /// of `alert` events ends, the console and a stream without alerts stay.
    @Test func aHubBehindShedsItsQueueForTheConsolesAndKeepsThemOpen() async throws {
        // At most 32 queued; shed to the alarm and the newest 15.
        let (hub, console) = try Self.hubWithAConsole()
        let singles = try hub.subscribe(EventFilter(positions: false), owner: "user:b").get()
        var quiet = EventFilter(positions: true)
        quiet.alerts = false
        let positionsOnly = try hub.subscribe(quiet, owner: "user:c").get()
        let alerts = Self.alerts(1...40) { $0 == 5 }
        hub.publish(alerts: Array(alerts[0..<20]), positions: [])
        hub.publish(alerts: Array(alerts[20..<32]), positions: [])
        hub.publish(alerts: Array(alerts[32..<40]), positions: [])
        #expect(hub.counts == EventHub.Counts(open: 2, endedSlow: 0, endedBehind: 1))
        #expect(await Self.drain(singles.events).isEmpty)

        let running = Task { await hub.run() }
        let batch: LiveEvent? = await within(seconds: 5) {
            for await chunk in console.events {
                console.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                if let e = chunk.events.first(where: { $0.kind == .compactAlerts }) { return e }
            }
            return nil
        }
        let e = try #require(batch)
        let (id, rows, skipped) = try EventHubCompactAlertsTests.parse(e)
        #expect(id == "40" && e.firstId == 1)
        #expect(rows.map { $0["id"] as? Int64 } == [5] + (26...40).map { Int64($0) })
        #expect(skipped == 24)
        // A client that caught up to alert 20 from the database: 5 of the shed remain.
        let rest = try EventHubCompactAlertsTests.parse(
            try #require(LiveChunk([e]).after(alert: 20).events.first))
        #expect(rest.rows.count == 15 && rest.skipped == 5)
        #expect(hub.counts.open == 2)
        hub.close()
        await running.value
        _ = positionsOnly
    }

    @Test func alarmsPastTheBoundEndEveryStreamOfAlerts() async throws {
        let (hub, console) = try Self.hubWithAConsole()
        // 40 alarms: shedding keeps them all, still past the bound.
        hub.publish(alerts: Self.alerts(1...40) { _ in true }, positions: [])
        #expect(hub.counts == EventHub.Counts(open: 0, endedSlow: 0, endedBehind: 1))
        #expect(await Self.drain(console.events).isEmpty)
    }

    @Test func aStreamWithNothingUnsentTakesARoundBiggerThanItsBuffer() async throws {
        // A whole fleet's positions in one round may outweigh the buffer: a
        // stream that keeps up must not be cut off for it.
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 16, keepaliveS: 15)
        let s = try hub.subscribe(EventFilter(positions: false), owner: "user:map").get()
        let running = Task { await hub.run() }
        var ids: [Int64] = []
        for round in 0..<3 {
            let first = Int64(round * 30 + 1)
            hub.publish(alerts: Self.alerts(first...(first + 29)), positions: [])
            for await chunk in s.events {
                ids += chunk.events.map(\.id)
                s.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                if ids.count == (round + 1) * 30 { break }
            }
        }
        #expect(ids == Array(1...90))
        #expect(hub.counts == EventHub.Counts(open: 1, endedSlow: 0, endedBehind: 0))
        hub.close()
        await running.value
    }

    @Test func aStreamMoreThanItsBufferBehindIsEndedAndCounted() async throws {
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 16, keepaliveS: 15)
        let slow = try hub.subscribe(EventFilter(positions: false), owner: "user:slow").get()
        let running = Task { await hub.run() }
        // 10 then 10 more: the second round puts it 20 behind (the first never written).
        hub.publish(alerts: Self.alerts(1...10), positions: [])
        try await Task.sleep(for: .milliseconds(100))
        hub.publish(alerts: Self.alerts(11...20), positions: [])
        let got = await Self.drain(slow.events)
        #expect(got.flatMap(\.events).map(\.id) == Array(1...10))
        #expect(hub.counts == EventHub.Counts(open: 0, endedSlow: 1, endedBehind: 0))
        hub.close()
        await running.value
    }

    @Test func positionsBeyondTheBoundAreHeldNewestPerDeviceAndEndNoStream() async throws {
        // buffer 16: at most 32 alerts queue; 200 positions end no stream.
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 16, keepaliveS: 15)
        let map = try hub.subscribe(
            EventFilter(positions: true, batch: true, compact: true), owner: "user:map"
        ).get()
        let t0: Int64 = 1_700_000_000_000
        // 20 commits of 10 devices each (200 positions), an alert among them; no round meanwhile.
        for k in 0..<20 {
            let rows = (0..<10).map { d in
                PositionRow(
                    fix: Fix(
                        device: "car-\(d)", time: t0 + Int64(k) * 1000, lat: 48 + Double(k) / 100,
                        lon: 11),
                    disposition: .accepted, receivedMs: t0)
            }
            hub.publish(alerts: k == 7 ? Self.alerts(1...1) : [], positions: rows)
        }
        // An older fix that arrives late does not replace a newer one.
        hub.publish(
            alerts: [],
            positions: [
                PositionRow(
                    fix: Fix(device: "car-3", time: t0, lat: 0, lon: 0), disposition: .accepted,
                    receivedMs: t0)
            ])
        #expect(
            hub.counts
                == EventHub.Counts(open: 1, endedSlow: 0, endedBehind: 0, positionsWaiting: 10))
        let running = Task { await hub.run() }
        var alerts: [Int64] = []
        var rows: [[String: Any]] = []
        for await chunk in map.events {
            map.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
            alerts += chunk.events.filter { $0.kind == .alert }.map(\.id)
            for e in chunk.events where e.kind == .compactPositions {
                rows += try EventHubCompactTests.rows(e)
            }
            if !rows.isEmpty { break }
        }
        #expect(alerts == [1])
        // One row per device, its newest.
        #expect(rows.count == 10)
        #expect(Set(rows.compactMap { $0["device"] as? String }).count == 10)
        #expect(
            rows.allSatisfy { ($0["time_ms"] as? NSNumber)?.int64Value == t0 + 19_000 })
        hub.close()
        await running.value
    }
}
