import FleetStorage
import Testing

@testable import FleetHTTP

/// `CompactAlerts.keep` over a queue's parts, as the hub sheds it while a
/// storm lasts, against `CompactAlerts.split` over the same alerts joined
/// (as a compact stream's round applies the rule; the rule itself is held
/// to its rows by `EventHubCompactAlertsTests` and `EventHubBoundTests`):
/// the same alerts kept, in the same order, and the rest counted as shed,
/// with their first and last ids, wherever the parts begin and end.
@Suite struct CompactAlertsKeepTests {
    @Test(arguments: 0..<200)
    func keepAgreesWithSplitOverTheJoinedQueue(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        var parts: [[AlertRecord]] = []
        var id: Int64 = Int64(rng.next() % 1000)
        for _ in 0..<Int(rng.next() % 6) {
            var part: [AlertRecord] = []
            for _ in 0..<Int(rng.next() % 12) {
                id += 1 + Int64(rng.next() % 3)
                let alarm = rng.next() % 5 == 0
                part.append(
                    AlertRecord(
                        id: id, time: id, device: "d\(id % 4)",
                        type: alarm ? "device_alarm" : "geofence_enter", fence: nil, lat: nil,
                        lon: nil, details: nil))
            }
            parts.append(part)
        }
        let most = Int(rng.next() % 20)
        let (rows, left) = CompactAlerts.split(Array(parts.joined()), most: most)
        var expected = ShedAlerts()
        for id in left { expected.add(id) }
        var shed = ShedAlerts()
        let kept = CompactAlerts.keep(parts, most: most) { shed.add($0) }
        #expect(kept.map(\.id) == rows.map(\.id))
        #expect(shed == expected)
    }

    /// A small deterministic generator, so a failing seed can be replayed.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
