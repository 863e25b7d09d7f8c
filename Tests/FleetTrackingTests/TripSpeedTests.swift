import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// Trip speeds on the bundled real routes (the crossing set's tracks): a
/// trip's average is never above its maximum, and its maximum is the
/// highest 10 s average speed (`SpeedWindow`) within a few percent of the
/// same measure taken on the raw track (the reported speeds where the route
/// has them, else the geodesic way between consecutive fixes; spans across
/// a GNSS jump, a step faster than `jumpSpeedKmh`, left out), never a
/// single noisy step.
@Suite struct TripSpeedTests {
    /// The highest average over consecutive spans of at least `windowMs`
    /// between `from` and `to` (fix times), computed on the raw fixes.
    static func rawMaxKmh(_ fixes: [Fix], from: Int64, to: Int64, windowMs: Int64) -> Double {
        let jumpKmh = TrackerSettings().jumpSpeedKmh
        let run = fixes.filter { $0.time >= from && $0.time <= to }
        var best = 0.0
        var k = 0
        while k < run.count - 1 {
            var j = k
            var metres = 0.0
            var reported = 0.0
            var reportedMs: Int64 = 0
            var jumped = false
            while j < run.count - 1 && run[j].time - run[k].time < windowMs {
                let a = run[j]
                let b = run[j + 1]
                let step = Geodesic.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
                if b.time > a.time, step / (Double(b.time - a.time) / 1000) * 3.6 > jumpKmh {
                    jumped = true
                }
                metres += step
                if let v = b.speedKmh {
                    reported += v * Double(b.time - a.time)
                    reportedMs += b.time - a.time
                }
                j += 1
            }
            let span = run[j].time - run[k].time
            if span >= windowMs, !jumped {
                let kmh =
                    reportedMs > 0
                    ? reported / Double(reportedMs) : metres / (Double(span) / 1000) * 3.6
                best = max(best, kmh)
            }
            k = j
        }
        return best
    }

    @Test(arguments: RouteData.routes)
    func averageNeverAboveMaxAndMaxNearTheRawTracks(route: String) throws {
        let fixes = try RouteData.fixesParkedAfter(route, device: "s")
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        #expect(!replay.trips.isEmpty)
        let windowMs = Int64(TrackerSettings().maxSpeedWindowS * 1000)
        for trip in replay.trips {
            #expect(
                trip.averageSpeedKmh <= trip.maxSpeedKmh + 1e-9,
                "\(route): average \(trip.averageSpeedKmh) above max \(trip.maxSpeedKmh)")
            let raw = Self.rawMaxKmh(
                fixes, from: trip.start.time, to: trip.end.time, windowMs: windowMs)
            #expect(
                trip.maxSpeedKmh <= raw * 1.05 + 1,
                "\(route): max \(trip.maxSpeedKmh) km/h against \(raw) on the raw track")
            #expect(
                trip.maxSpeedKmh >= raw * 0.85,
                "\(route): max \(trip.maxSpeedKmh) km/h against \(raw) on the raw track")
        }
    }
}
