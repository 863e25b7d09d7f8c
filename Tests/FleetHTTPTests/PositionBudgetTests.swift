import FleetModel
import FleetStorage
import Foundation
import Testing

@testable import FleetHTTP

/// `http.stream_positions_per_s`: the live streams send at most so many
/// positions a second over the whole fleet; while more devices are due,
/// those waiting longest go first and the rest keep their place.
@Suite struct PositionBudgetTests {
    static func row(_ device: String, _ t: Int64) -> PositionRow {
        PositionRow(
            fix: Fix(device: device, time: t, lat: 48, lon: 11, speedKmh: 30),
            disposition: .accepted,
            receivedMs: t)
    }

    @Test func aRoundTakesAtMostItsBudgetThoseWaitingLongestFirst() {
        var live = LivePositions()
        for d in ["a", "b", "c", "d", "e"] { live.hold(Self.row(d, 1000), whole: false) }
        let t: Int64 = 1_800_000_000_000
        let first = live.take(nowMs: t, most: 2, wantWhole: false, wantCompact: true)
        #expect(first.rows.map(\.device) == ["a", "b"])
        #expect(first.count == 2)
        #expect(live.waitingCount == 3)
        // a's next fix waits behind c, d and e, who have waited longer.
        live.hold(Self.row("a", 2000), whole: false)
        let second = live.take(nowMs: t + 1000, most: 2, wantWhole: false, wantCompact: true)
        #expect(second.rows.map(\.device) == ["c", "d"])
        let third = live.take(nowMs: t + 2000, most: 10, wantWhole: false, wantCompact: true)
        #expect(third.rows.map(\.device) == ["e", "a"])
        #expect(third.rows.last?.row.time == 2000)
        #expect(live.waitingCount == 0)
        // Nothing due: nothing taken, whatever the budget.
        #expect(
            live.take(nowMs: t + 2000, most: 10, wantWhole: false, wantCompact: true).count == 0)
        #expect(live.take(nowMs: t + 3000, most: 0, wantWhole: false, wantCompact: true).count == 0)
    }

    @Test func theBudgetRefillsAtItsRateAndSavesUpOneSecondAtMost() {
        var budget = RateBudget(perS: 1000)
        let t: Int64 = 1_800_000_000_000
        #expect(budget.available(nowMs: t) == 1000)
        budget.spend(1000)
        #expect(budget.available(nowMs: t) == 0)
        #expect(budget.available(nowMs: t + 200) == 200)
        budget.spend(150)
        #expect(budget.available(nowMs: t + 200) == 50)
        // A clock stepping back adds nothing.
        #expect(budget.available(nowMs: t - 5000) == 50)
        // A long quiet spell saves up one second's worth, no more.
        #expect(budget.available(nowMs: t + 60_000) == 1000)
        budget.spend(5000)
        #expect(budget.available(nowMs: t + 60_000) == 0)
    }

    /// 300 devices through a hub allowed 100 positions a second: the first
    /// round sends 100, every device arrives once, over about two seconds
    /// more, and `/metrics`' count of those waiting falls to zero.
    @Test func aHubSpreadsAFleetOverItsBudget() async throws {
        let hub = EventHub(
            maxStreams: 10, maxPerOwner: 10, buffer: 10_000, keepaliveS: 15, positionsPerS: 100)
        let s = try hub.subscribe(EventFilter(positions: true, compact: true), owner: "u").get()
        let runner = Task { await hub.run() }
        defer {
            hub.close()
            runner.cancel()
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        hub.publish(alerts: [], positions: (0..<300).map { Self.row("d\($0)", now) })
        #expect(hub.counts.positionsWaiting == 300)
        let start = Date()
        let rounds: [(devices: [String], at: TimeInterval)] =
            await within(seconds: 10) {
                var got: [([String], TimeInterval)] = []
                var seen = 0
                for await chunk in s.events {
                    s.subscriber.queued.subtract(chunk.weight, ordering: .relaxed)
                    for e in chunk.events where e.kind == .compactPositions {
                        let devices = try? EventHubCompactTests.rows(e).compactMap {
                            $0["device"] as? String
                        }
                        got.append((devices ?? [], Date().timeIntervalSince(start)))
                        seen += devices?.count ?? 0
                    }
                    if seen >= 300 { return got }
                }
                return nil
            } ?? []
        let all = rounds.flatMap(\.devices)
        #expect(all.count == 300)
        #expect(Set(all).count == 300)
        #expect(rounds.first?.devices.count == 100)
        #expect(rounds.allSatisfy { $0.devices.count <= 100 })
        // 200 after the first 100, at 100 a second.
        #expect((rounds.last?.at ?? 0) >= 1.5)
        #expect(hub.counts.positionsWaiting == 0)
    }
}
