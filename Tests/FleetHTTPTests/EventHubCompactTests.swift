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
        await withTaskGroup(of: [LiveEvent]?.self) { group in
            group.addTask {
                for await chunk in s.events {
                    s.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                    let got = chunk.events.filter { $0.kind.isPosition }
                    if !got.isEmpty { return got.allSatisfy { $0.kind == kind } ? got : [] }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
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
            empty.json
                == #"{"fields":["device","time_ms","lat","lon","speed_kmh","course"],"rows":[["a",0,0,0,null,null]]}"#
        )
    }

    @Test func heldPositionsKeepEachDevicesNewestInEitherForm() {
        func row(_ device: String, _ t: Int64, lat: Double = 48) -> PositionRow {
            Self.row(Fix(device: device, time: t, lat: lat, lon: 11, speedKmh: 30))
        }
        var held = HeldPositions()
        held.hold(row("a", 2000, lat: 48.2), whole: false)
        held.hold(row("a", 1000, lat: 48.1), whole: true)  // older: not kept
        held.hold(
            PositionRow(
                fix: Fix(device: "b", time: 9000, lat: 1, lon: 1), disposition: .duplicate,
                receivedMs: 0), whole: true)  // not accepted: not kept
        #expect(held.count == 1)
        held.hold(row("a", 3000, lat: 48.3), whole: true)  // newer: whole replaces compact
        held.hold(row("c", 1000), whole: false)
        #expect(held.count == 2)
        // Not due: nothing taken, nothing lost.
        #expect(held.take(singles: true, batches: true, compacts: true) { _ in false }.isEmpty)
        #expect(held.count == 2)
        let events = held.take(singles: false, batches: true, compacts: true) { _ in true }
        #expect(held.isEmpty)
        // Both in the compact batch; only the whole one in the full batch.
        let compact = events.filter { $0.kind == .compactPositions }
        let batch = events.filter { $0.kind == .positions }
        #expect(compact.count == 1 && compact[0].weight == 2)
        #expect(batch.count == 1 && batch[0].weight == 1)
        #expect(String(buffer: batch[0].bytes).contains("\"lat\":48.3"))
        #expect(!events.contains { $0.kind == .position })
        // Folded positions merge by time too.
        var folded = HeldPositions()
        folded.hold(row("a", 5000, lat: 48.5), whole: false)
        held.hold(row("a", 4000, lat: 48.4), whole: true)
        held.hold(folded)
        let after = held.take(singles: true, batches: false, compacts: true) { _ in true }
        #expect(after.count == 1 && after[0].kind == .compactPositions)
        #expect(String(buffer: after[0].bytes).contains(",48.5,"))
    }
}
