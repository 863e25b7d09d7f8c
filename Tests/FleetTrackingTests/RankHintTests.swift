import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// The fence ranks a tracker caches in a state (`RankHint`) only save it
/// look-ups: a state carrying them, one without them (read from the
/// database), and one carrying another tracker's (fences reloaded, ranks
/// shifted) all give the same alerts and the same next state.
@Suite struct RankHintTests {
    /// Overlapping boxes around 48° N, 11° E; sizes in metres from there.
    static func fences(_ spec: [(id: String, x: Double, y: Double, w: Double, margin: Double?)])
        -> FenceIndex
    {
        FenceIndex(
            fences: spec.map { s in
                let x0 = 11.0 + s.x * mLon
                let y0 = 48.0 + s.y * mLat
                return Fence(
                    id: s.id, name: s.id,
                    shape: .polygons([box(x0, y0, x0 + s.w * mLon, y0 + s.w * mLat)]),
                    marginM: s.margin)
            })
    }

    static let before = fences([
        ("b", 0, 0, 300, nil), ("d", 100, 50, 120, 5), ("f", 150, 150, 200, 30),
        ("h", 40, 200, 90, 0), ("k", 250, 10, 60, nil),
    ])
    /// The same area reloaded: "a" and "c" new (every rank after them moves),
    /// "h" gone, "f" smaller.
    static let after = fences([
        ("a", 20, 20, 100, nil), ("b", 0, 0, 300, nil), ("c", 120, 120, 80, 10),
        ("d", 100, 50, 120, 5), ("f", 150, 150, 150, 30), ("k", 250, 10, 60, nil),
    ])

    /// A device wandering over the fences, one fix a second.
    static func walk(_ n: Int, seed: UInt64) -> [Fix] {
        var g = Gaussian(state: seed)
        var x = 150.0
        var y = 150.0
        return (0..<n).map { k in
            x = min(max(x + 25 * g.next(), -60), 420)
            y = min(max(y + 25 * g.next(), -60), 420)
            return Fix(
                device: "v", time: 1_700_000_000_000 + Int64(k) * 1000, lat: 48 + y * mLat,
                lon: 11 + x * mLon, speedKmh: 30)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func cachedRanksChangeNothingAcrossAReload(seed: UInt64) {
        let fixes = Self.walk(600, seed: seed)
        var cached = Tracker(fences: Self.before)
        var plain = Tracker(fences: Self.before)
        var kept: DeviceState?  // keeps the ranks its tracker wrote
        var bare: DeviceState?  // stripped before every fix
        var alerts = 0
        for (k, fix) in fixes.enumerated() {
            if k == 300 {  // reload: new trackers; `kept` carries the old one's ranks
                cached = Tracker(fences: Self.after)
                plain = Tracker(fences: Self.after)
            }
            bare?.ranksEpoch = RankHint()
            if var b = bare {
                for i in b.fences.indices { b.fences[i].rank = RankHint() }
                bare = b
            }
            let a = cached.process(fix, state: &kept)
            let b = plain.process(fix, state: &bare)
            #expect(a == b, "fix \(k)")
            #expect(kept == bare, "fix \(k)")
            alerts += a.alerts.count { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        }
        // The walk did cross fences, before and after the reload.
        #expect(alerts > 20)
        #expect(kept?.ranksEpoch.value != 0)
    }

    /// Memberships set from outside the tracker carry no ranks: the state
    /// forgets its cached ones, and the next fix goes by the ids.
    @Test func membershipsSetFromOutsideDropTheCachedRanks() {
        let fixes = Self.walk(200, seed: 9)
        var tracker = Tracker(fences: Self.before)
        var state: DeviceState?
        for fix in fixes.prefix(100) { _ = tracker.process(fix, state: &state) }
        var edited = state!
        #expect(edited.ranksEpoch.value != 0)
        // Memberships a caller writes in: "d" and "k" (ranks 1 and 4; new
        // memberships carry no rank, so trusting the state's old epoch would
        // take both for "b", rank 0).
        let t = fixes[99].time
        edited.fences = [
            FenceMembership(fence: "d", phase: .inside(since: t - 60_000)),
            FenceMembership(fence: "k", phase: .exiting(enteredAt: t - 90_000, since: t, fixes: 1)),
        ]
        #expect(edited.ranksEpoch.value == 0)
        var bare: DeviceState? = edited
        var kept: DeviceState? = edited
        var plain = Tracker(fences: Self.before)
        var exits = 0
        for fix in fixes.dropFirst(100) {
            let a = tracker.process(fix, state: &kept)
            #expect(a == plain.process(fix, state: &bare))
            #expect(kept == bare)
            exits += a.alerts.count {
                $0.type == .geofenceExit && ($0.fence == "d" || $0.fence == "k")
            }
        }
        #expect(exits > 0)  // the memberships written in mattered
    }
}
