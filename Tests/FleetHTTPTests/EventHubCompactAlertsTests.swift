import FleetModel
import FleetStorage
import Foundation
import Testing

@testable import FleetHTTP

/// `?alerts=compact`: a round's alerts as one `alerts_compact` event of
/// rows under the last one's SSE id, the same alerts the `alert` events
/// carry; filtered streams keep `alert` events; `alerts=off` gets none.
@Suite struct EventHubCompactAlertsTests {
    static let records: [AlertRecord] = [
        AlertRecord(
            id: 41, time: 1_700_000_000_001, device: "truck \"7\"", type: "geofence_enter",
            fence: "depot-3", lat: 52.512345, lon: 13.4, details: nil),
        AlertRecord(
            id: 42, time: 1_700_000_000_002, device: "van-2", type: "device_silent", fence: nil,
            lat: nil, lon: nil, details: #"{"silent_s":600}"#),
        AlertRecord(
            id: 45, time: 1_700_000_000_003, device: "van-2", type: "geofence_exit",
            fence: "depot-3", lat: 48.85, lon: 2.35, details: #"{"duration_s":12.5}"#),
    ]

    /// The SSE `id:`, the rows (as objects by `fields`) and `skipped` of an
    /// `alerts_compact` event.
    static func parse(_ e: LiveEvent) throws -> (id: String, rows: [[String: Any]], skipped: Int) {
        let text = String(buffer: e.bytes)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3 && lines[1] == "event: alerts_compact" && text.hasSuffix("\n\n"))
        let id = try #require(lines.first { $0.hasPrefix("id: ") }).dropFirst(4)
        let data = try #require(lines.first { $0.hasPrefix("data: ") }).dropFirst(6)
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let fields = try #require(json["fields"] as? [String])
        #expect(fields == CompactAlerts.fields)
        let rows = try #require(json["rows"] as? [[Any]])
        let skipped = try #require(json["skipped"] as? Int)
        return (
            String(id), rows.map { Dictionary(uniqueKeysWithValues: zip(fields, $0)) }, skipped
        )
    }

    @Test func rowsCarryWhatTheAlertEventsCarry() throws {
        let e = try #require(CompactAlerts.event(Self.records))
        #expect(e.kind == .compactAlerts && e.weight == 3 && e.id == 45 && e.firstId == 41)
        let (id, rows, skipped) = try Self.parse(e)
        #expect(id == "45" && skipped == 0)
        // Each row against the full record's JSON, member by member.
        for (row, a) in zip(rows, Self.records) {
            let full = try #require(
                JSONSerialization.jsonObject(with: Data(a.jsonLine.utf8)) as? [String: Any])
            #expect(row["id"] as? Int64 == a.id)
            #expect(row["time_ms"] as? Int64 == a.time)
            for key in ["device", "type"] { #expect(row[key] as? String == full[key] as? String) }
            #expect((row["fence"] as? String) == (full["fence"] as? String))
            #expect((row["lat"] as? Double) == (full["lat"] as? Double))
            #expect((row["lon"] as? Double) == (full["lon"] as? Double))
            let details = row["details"] as? [String: Any] ?? [:]
            for (key, value) in details {
                #expect("\(value)" == "\(full[key] ?? "missing")", "\(key)")
            }
        }
        #expect(rows[0]["details"] is NSNull && rows[1]["fence"] is NSNull)
        #expect(rows[1]["lat"] is NSNull)
        #expect(CompactAlerts.event([]) == nil)
        // A third of the bytes, or less, of the alert events.
        let singles = Self.records.map {
            LiveEvent(
                kind: .alert, id: $0.id, device: $0.device, type: $0.type, fence: $0.fence,
                json: $0.jsonLine
            ).bytes.readableBytes
        }.reduce(0, +)
        #expect(e.bytes.readableBytes < singles)
    }

    @Test func aChunkAfterACatchUpKeepsOnlyTheNewerAlertsOfABatch() throws {
        let batch = try #require(CompactAlerts.event(Self.records))
        let chunk = LiveChunk([batch, .ping])
        #expect(chunk.repeats(alert: 41) && chunk.repeats(alert: 50))
        #expect(!chunk.repeats(alert: 40))
        let rest = chunk.after(alert: 42)
        let trimmed = try #require(rest.events.first)
        let (id, rows, _) = try Self.parse(trimmed)
        #expect(id == "45" && rows.map { $0["id"] as? Int64 } == [45])
        #expect(rest.events.count == 2 && rest.weight == 2)
        // All of it caught up already: the batch goes, the rest stays.
        #expect(chunk.after(alert: 45).events.map(\.kind) == [.ping])
        #expect(chunk.after(alert: 40).events.map(\.weight) == [3, 1])
    }

    /// Ten alerts, the third a `device_alarm`.
    static let storm: [AlertRecord] = (1...10).map { (k: Int) -> AlertRecord in
        let alarm = k == 3
        let fence: String? = alarm ? nil : "f\(k)"
        return AlertRecord(
            id: Int64(100 + k), time: 1_700_000_000_000 + Int64(k), device: "car-\(k)",
            type: alarm ? "device_alarm" : "geofence_enter", fence: fence, lat: 1, lon: 2,
            details: nil)
    }

    @Test func pastItsBudgetABatchKeepsAlarmsAndTheNewestAndCountsTheRest() throws {
        let e = try #require(CompactAlerts.event(Self.storm, most: 3))
        let (id, rows, skipped) = try Self.parse(e)
        // The alarm, then the two newest others; the SSE id the last alert's.
        #expect(rows.map { $0["id"] as? Int64 } == [103, 109, 110])
        #expect(skipped == 7 && id == "110" && e.weight == 3 && e.firstId == 101)
        // No budget left: the alarm alone.
        let alarmOnly = try Self.parse(try #require(CompactAlerts.event(Self.storm, most: 0)))
        #expect(alarmOnly.rows.map { $0["type"] as? String } == ["device_alarm"])
        #expect(alarmOnly.skipped == 9)
        // Nothing kept at all: still an event, so its id moves the client on.
        let none = Array(Self.storm.suffix(5))
        let skippedAll = try #require(CompactAlerts.event(none, most: 0))
        let parsed = try Self.parse(skippedAll)
        #expect(parsed.rows.isEmpty && parsed.skipped == 5 && parsed.id == "110")
        #expect(skippedAll.weight == 1)
        // Within the budget: all of them.
        #expect(
            try Self.parse(try #require(CompactAlerts.event(Self.storm, most: 10))).skipped == 0)
        // Trimmed after a catch-up through 105: the rows and the skipped after it.
        let rest = try #require(LiveChunk([e]).after(alert: 105).events.first)
        let trimmed = try Self.parse(rest)
        #expect(trimmed.rows.map { $0["id"] as? Int64 } == [109, 110])
        #expect(trimmed.skipped == 3 && trimmed.id == "110" && rest.firstId == 106)
    }

    /// 300 alerts through a hub allowed 100 rows a second: the compact
    /// client gets 100 rows and 200 counted as skipped, the client of
    /// `alert` events all 300.
    @Test func aHubKeepsCompactAlertsWithinItsBudget() async throws {
        let hub = EventHub(
            maxStreams: 10, maxPerOwner: 10, buffer: 1000, keepaliveS: 15, alertsPerS: 100)
        let compact = try hub.subscribe(
            EventFilter(positions: false, compactAlerts: true), owner: "u"
        ).get()
        let singles = try hub.subscribe(EventFilter(positions: false), owner: "u").get()
        let runner = Task { await hub.run() }
        defer {
            hub.close()
            runner.cancel()
        }
        let many = (1...300).map { k in
            AlertRecord(
                id: Int64(k), time: 1_700_000_000_000, device: "car-\(k)", type: "geofence_enter",
                fence: "f", lat: 1, lon: 2, details: nil)
        }
        hub.publish(alerts: many, positions: [])
        let batches: [LiveEvent] =
            await within(seconds: 5) {
                var got: [LiveEvent] = []
                for await chunk in compact.events {
                    compact.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                    got += chunk.events.filter { $0.kind == .compactAlerts }
                    if got.last?.id == 300 { return got }
                }
                return nil
            } ?? []
        let parsed = try batches.map(Self.parse)
        #expect(parsed.map(\.rows.count).reduce(0, +) == 100)
        #expect(parsed.map(\.skipped).reduce(0, +) == 200)
        #expect(parsed.last?.rows.last?["id"] as? Int64 == 300)
        let all: Int =
            await within(seconds: 5) {
                var n = 0
                for await chunk in singles.events {
                    singles.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                    n += chunk.events.filter { $0.kind == .alert }.count
                    if n >= 300 { return n }
                }
                return nil
            } ?? 0
        #expect(all == 300)
    }

    @Test func aHubSendsEachClientTheFormItAskedFor() async throws {
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 100, keepaliveS: 15)
        func open(_ f: EventFilter) throws -> (
            subscriber: EventHub.Subscriber, events: AsyncStream<LiveChunk>
        ) {
            try hub.subscribe(f, owner: "u").get()
        }
        let compact = try open(EventFilter(positions: false, compactAlerts: true))
        let singles = try open(EventFilter(positions: false))
        let oneDevice = try open(
            EventFilter(device: "van-2", positions: false, compactAlerts: true))
        let none = try open(EventFilter(positions: true, alerts: false))
        let runner = Task { await hub.run() }
        defer {
            hub.close()
            runner.cancel()
        }
        hub.publish(alerts: Array(Self.records.prefix(2)), positions: [])
        hub.publish(alerts: [Self.records[2]], positions: [])
        hub.publish(
            alerts: [],
            positions: [
                PositionRow(
                    fix: Fix(device: "van-2", time: 1_700_000_000_000, lat: 1, lon: 2),
                    disposition: .accepted, receivedMs: 0)
            ])
        /// The alert events a stream gets, once they carry `want` alerts or a position came.
        func alertEvents(
            _ s: (subscriber: EventHub.Subscriber, events: AsyncStream<LiveChunk>), want: Int = 3
        )
            async -> [LiveEvent]
        {
            await within(seconds: 3) {
                var got: [LiveEvent] = []
                for await chunk in s.events {
                    s.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                    got += chunk.events.filter { $0.kind.isAlert }
                    if got.reduce(0, { $0 + $1.weight }) >= want
                        || chunk.events.contains(where: {
                            $0.kind.isPosition
                        })
                    {
                        return got
                    }
                }
                return got
            } ?? []
        }
        let c = await alertEvents(compact)
        #expect(c.allSatisfy { $0.kind == .compactAlerts })
        let ids = try c.flatMap { try Self.parse($0).rows.compactMap { $0["id"] as? Int64 } }
        #expect(try c.allSatisfy { try Self.parse($0).skipped == 0 })
        #expect(ids == [41, 42, 45])
        let s = await alertEvents(singles)
        #expect(s.map(\.kind) == [.alert, .alert, .alert] && s.map(\.id) == [41, 42, 45])
        // A filtered stream takes its alerts one event each.
        let o = await alertEvents(oneDevice, want: 2)
        #expect(o.map(\.kind) == [.alert, .alert] && o.map(\.id) == [42, 45])
        // `alerts=off`: positions only.
        #expect(await alertEvents(none).isEmpty)
    }
}
