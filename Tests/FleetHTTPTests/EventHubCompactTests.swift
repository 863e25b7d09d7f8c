import FleetModel
import FleetStorage
import Foundation
import NIOCore
import Testing

@testable import FleetHTTP

/// `?positions=compact`: a round's positions as one `positions_compact`
/// event of rows, the same positions the `positions` batch carries, read
/// back by its `fields`.
@Suite struct EventHubCompactTests {
    static func row(_ fix: Fix) -> PositionRow {
        PositionRow(fix: fix, disposition: .accepted, receivedMs: fix.time)
    }

    /// The first chunk with a position event of `kind` (waits at most ~5 s).
    static func firstPositions(
        _ s: (subscriber: EventHub.Subscriber, events: AsyncStream<LiveChunk>),
        _ kind: LiveEvent.Kind
    ) async -> [LiveEvent] {
        await within(seconds: 5) {
            for await chunk in s.events {
                s.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                let got = chunk.events.filter { $0.kind.isPosition }
                if !got.isEmpty { return got.allSatisfy { $0.kind == kind } ? got : [] }
            }
            return nil
        } ?? []
    }

    /// The rows of a `positions_compact` event's data, as objects by `fields`.
    static func rows(_ e: LiveEvent) throws -> [[String: Any]] {
        let text = String(buffer: e.bytes)
        let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any])
        let fields = try #require(json["fields"] as? [String])
        let rows = try #require(json["rows"] as? [[Any]])
        return rows.map { Dictionary(uniqueKeysWithValues: zip(fields, $0)) }
    }

    @Test func compactRowsCarryTheBatchesPositions() async throws {
        let hub = EventHub(maxStreams: 10, maxPerOwner: 10, buffer: 100, keepaliveS: 15)
        let compact = try hub.subscribe(
            EventFilter(positions: true, batch: true, compact: true), owner: "user:a"
        ).get()
        let batch = try hub.subscribe(EventFilter(positions: true, batch: true), owner: "user:b")
            .get()
        // Limited to one device: positions one event each, whatever it asked for.
        let one = try hub.subscribe(
            EventFilter(device: "van \"2\"", positions: true, batch: true, compact: true),
            owner: "user:c"
        ).get()
        let running = Task { await hub.run() }
        let fixes = [
            Fix(
                device: "truck-1", time: 1_764_432_000_123, lat: 52.512345678901234,
                lon: -13.4, speedKmh: 42.5, course: 180, ignition: true),
            Fix(device: "van \"2\"", time: 1_764_432_000_456, lat: -33.9, lon: 151.2),
        ]
        hub.publish(alerts: [], positions: fixes.map(Self.row))
        let compacted = await Self.firstPositions(compact, .compactPositions)
        let batched = await Self.firstPositions(batch, .positions)
        let single = await Self.firstPositions(one, .position)
        hub.close()
        await running.value

        #expect(compacted.count == 1 && compacted[0].weight == 2)
        let rows = try Self.rows(compacted[0]).sorted { "\($0["device"]!)" < "\($1["device"]!)" }
        #expect(rows.count == 2)
        #expect(rows[0]["device"] as? String == "truck-1")
        #expect((rows[0]["time_ms"] as? NSNumber)?.int64Value == 1_764_432_000_123)
        // Coordinates as stored, to the last digit (Swift's shortest round-trip form;
        // Foundation's parser on Linux rounds long decimals, so the text is checked).
        #expect(String(buffer: compacted[0].bytes).contains(",\(52.512345678901234),"))
        #expect(abs((rows[0]["lat"] as? Double ?? 0) - 52.512345678901234) < 1e-9)
        #expect(rows[0]["lon"] as? Double == -13.4)
        #expect(rows[0]["speed_kmh"] as? Double == 42.5)
        #expect(rows[0]["course"] as? Double == 180)
        #expect(rows[1]["device"] as? String == "van \"2\"")
        #expect(rows[1]["speed_kmh"] is NSNull && rows[1]["course"] is NSNull)
        // The same positions as the full batch, in a fraction of the bytes.
        #expect(batched.count == 1 && batched[0].weight == 2)
        #expect(compacted[0].bytes.readableBytes * 3 < batched[0].bytes.readableBytes)
        #expect(single.count == 1 && single[0].device == "van \"2\"")
    }

    @Test func theFieldsAreAContract() {
        // Fields may be added at the end, never renamed, moved or taken out.
        #expect(
            Array(CompactPositions.fields.prefix(6)) == [
                "device", "time_ms", "lat", "lon", "speed_kmh", "course",
            ])
        var empty = CompactPositions()
        #expect(empty.count == 0)
        empty.append(Fix(device: "a", time: 0, lat: 0, lon: 0))
        #expect(
            String(buffer: empty.event().bytes)
                == "event: positions_compact\ndata: "
                + #"{"fields":["device","time_ms","lat","lon","speed_kmh","course"],"rows":[["a",0,0,0,null,null]]}"#
                + "\n\n"
        )
    }

    @Test func livePositionsSendEachDevicesNewestAtMostOnceASecond() {
        func row(_ device: String, _ t: Int64, lat: Double = 48) -> PositionRow {
            Self.row(Fix(device: device, time: t, lat: lat, lon: 11, speedKmh: 30))
        }
        func lats(_ due: LivePositions.Due) -> [String: Double] {
            Dictionary(uniqueKeysWithValues: due.rows.map { ($0.device, $0.row.lat) })
        }
        var live = LivePositions()
        live.hold(row("a", 2000, lat: 48.2), whole: false)
        live.hold(row("a", 1000, lat: 48.1), whole: true)  // older: not kept
        live.hold(
            PositionRow(
                fix: Fix(device: "b", time: 9000, lat: 1, lon: 1), disposition: .duplicate,
                receivedMs: 0), whole: true)  // not accepted: not kept
        #expect(live.count == 1 && live.waitingCount == 1)
        live.hold(row("a", 3000, lat: 48.3), whole: true)  // newer, and whole
        live.hold(row("c", 1000), whole: false)
        #expect(live.count == 2 && live.waitingCount == 2)
        let t: Int64 = 1_800_000_000_000
        let first = live.take(nowMs: t, wantWhole: true, wantCompact: true)
        #expect(lats(first) == ["a": 48.3, "c": 48])
        // Only the whole one goes to clients of full records.
        #expect(first.whole.map(\.fix.device) == ["a"])
        let events = first.events(singles: false, batches: true, compacts: true)
        #expect(events.map(\.kind) == [.compactPositions, .positions])
        #expect(events.map(\.weight) == [2, 1])
        #expect(live.waitingCount == 0)
        // Newer within the second: held, not sent until a second after the last send.
        live.hold(row("a", 4000, lat: 48.4), whole: false)
        #expect(live.take(nowMs: t + 999, wantWhole: true, wantCompact: true).rows.isEmpty)
        // An older fix than the one sent is never sent.
        live.hold(row("c", 500, lat: 47), whole: false)
        let second = live.take(nowMs: t + 1000, wantWhole: true, wantCompact: true)
        #expect(lats(second) == ["a": 48.4])
        #expect(second.whole.isEmpty)
        #expect(live.waitingCount == 0)
        live.clear()
        #expect(live.count == 0)
    }

    @Test func aChunkSharesABigEventsBytesAndCopiesTheSmallOnes() {
        func alert(_ id: Int64) -> LiveEvent {
            LiveEvent(
                kind: .alert, id: id, device: "d", type: "geofence_enter", fence: "f",
                json: "{\"id\":\(id)}")
        }
        var batch = CompactPositions()
        for k in 0..<4000 { batch.append(Fix(device: "truck-\(k)", time: 1, lat: 48, lon: 11)) }
        let big = batch.event()
        #expect(big.bytes.readableBytes >= LiveChunk.ownPart && big.weight == 4000)
        let chunk = LiveChunk([alert(1), alert(2), big, alert(3)])
        #expect(chunk.parts.count == 3)
        #expect(chunk.weight == 4003)
        let text = chunk.parts.map { String(buffer: $0) }
        #expect(
            text[0]
                == "id: 1\nevent: alert\ndata: {\"id\":1}\n\nid: 2\nevent: alert\ndata: {\"id\":2}\n\n"
        )
        #expect(
            text[1].hasPrefix("event: positions_compact\ndata: {\"fields\":")
                && text[1].hasSuffix("]]}\n\n"))
        #expect(text[2] == "id: 3\nevent: alert\ndata: {\"id\":3}\n\n")
        // The big event's bytes are the event's own, not a copy.
        chunk.parts[1].withUnsafeReadableBytes { part in
            big.bytes.withUnsafeReadableBytes { own in #expect(part.baseAddress == own.baseAddress)
            }
        }
        // After a catch-up to alert 2: what is left.
        let rest = chunk.after(alert: 2)
        #expect(rest.parts.count == 2 && rest.weight == 4001)
        #expect(LiveChunk([alert(1), alert(2)]).parts.count == 1)
        #expect(LiveChunk([]).parts.isEmpty)
    }
}
