import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Testing

@testable import FleetSQLite

/// Trips, confirmed jump suspects and the whole tracking state through a
/// real SQLite file.
@Suite struct TrackingStateStoreTests {
    @Test func stateTripsAndConfirmedSuspectsRoundTrip() throws {
        let path = temporaryDatabase()
        let w = try SQLiteStore(path: path)
        // Real tracking output: a drive with a spike, a jump, a trip, then parked.
        var tracker = Tracker(fences: FenceIndex(fences: []))
        var state: DeviceState?
        var batch = WriteBatch()
        var fixes: [Fix] = []
        let mLat = 1 / 111_195.08
        for k in 0..<30 {
            fixes.append(Fix(device: "car", time: Int64(k) * 10_000, lat: 48, lon: 11))
        }
        for k in 1...40 {
            fixes.append(
                Fix(
                    device: "car", time: 300_000 + Int64(k) * 5_000,
                    lat: 48 + Double(k) * 50 * mLat,
                    lon: 11))
        }
        // A jump of 5 km, confirmed by the fixes after it.
        for k in 1...5 {
            fixes.append(
                Fix(
                    device: "car", time: 500_000 + Int64(k) * 1_000,
                    lat: 48 + 7000 * mLat + Double(k) * 10 * mLat, lon: 11))
        }
        for k in 1...30 {
            fixes.append(
                Fix(
                    device: "car", time: 505_000 + Int64(k) * 10_000, lat: 48 + 7050 * mLat, lon: 11
                ))
        }
        for f in fixes {
            let o = tracker.process(f, state: state)
            state = o.state
            batch.positions.append(
                PositionRow(fix: f, disposition: o.disposition, receivedMs: f.time))
            batch.alerts += o.alerts
            batch.trips += o.trips
            for t in o.confirmed { batch.confirmed.append(("car", t)) }
        }
        let final = try #require(state)
        batch.states["car"] = final
        #expect(batch.trips.count == 1)
        #expect(batch.confirmed.count == 2)
        try w.commit(batch, committedMs: 1)

        let loaded = try w.loadStates()
        #expect(loaded["car"] == final)
        let r = try SQLiteReader(path: path)
        let trips = try r.trips()
        #expect(trips.count == 1)
        let t = try #require(trips.first)
        let trip = batch.trips[0]
        #expect(t.device == "car" && t.startTime == trip.start.time && t.endTime == trip.end.time)
        #expect(t.distanceM == trip.distanceM && t.fixes == Int(trip.fixes))
        #expect(t.jsonLine.contains("\"avg_speed_kmh\":"))
        #expect(try r.trips(filter: TripFilter(device: "other")).isEmpty)
        #expect(try r.trips(filter: TripFilter(fromMs: t.endTime + 1)).isEmpty)
        #expect(try r.trips(filter: TripFilter(toMs: t.startTime)).isEmpty)
        // The suspects the jump's confirmation accepted are stored accepted; none stays `jump`.
        #expect(
            !(try r.positions(device: "car")).contains {
                $0.disposition == FixDisposition.jump.rawValue
            })
        let device = try #require(try r.devices().first)
        #expect(abs(device.odometerM - final.odometerM) < 1e-9)
        #expect(device.silent == false)
    }

    /// A drive east then north, a fix every 20 s, parked at both ends; the
    /// fixes at the two corners (t = 400 s and 600 s) are withheld.
    static func cornerDrive() -> (fixes: [Fix], corners: [Fix]) {
        let mLat = 1 / 111_195.08
        let mLon = 1 / (111_195.08 * cos(48 * Double.pi / 180))
        var fixes: [Fix] = []
        var corners: [Fix] = []
        func at(_ t: Int64, _ north: Double, _ east: Double) -> Fix {
            Fix(device: "car", time: t * 1000, lat: 48 + north * mLat, lon: 11 + east * mLon)
        }
        for k in 0..<20 { fixes.append(at(Int64(k) * 10, 0, 0)) }
        // 200 → 400 s: east 2 km; 400 → 600 s: north 2 km; 600 → 800 s: east again.
        for k in 1...30 {
            let t = 200 + Int64(k) * 20
            let f: Fix =
                t <= 400
                ? at(t, 0, Double(t - 200) * 10)
                : t <= 600
                    ? at(t, Double(t - 400) * 10, 2000) : at(t, 2000, 2000 + Double(t - 600) * 10)
            if t == 400 || t == 600 { corners.append(f) } else { fixes.append(f) }
        }
        for k in 1...30 { fixes.append(at(800 + Int64(k) * 10, 2000, 4000)) }
        return (fixes, corners)
    }

    /// The trips' distances count their late fixes: one that came while
    /// the trip was under way (counted when the trip is stored) and one
    /// after it (the stored trip recomputed); a late fix sent twice counts
    /// once.
    @Test func aTripsDistanceCountsItsLateFixes() throws {
        let path = temporaryDatabase()
        let w = try SQLiteStore(path: path)
        let r = try SQLiteReader(path: path)
        var tracker = Tracker(fences: FenceIndex(fences: []))
        var state: DeviceState?
        let (fixes, corners) = Self.cornerDrive()
        func track(_ f: Fix) throws -> FixDisposition {
            let o = tracker.process(f, state: state)
            state = o.state ?? state
            var b = WriteBatch()
            b.positions = [PositionRow(fix: f, disposition: o.disposition, receivedMs: f.time)]
            b.alerts = o.alerts
            b.trips = o.trips
            if let s = state { b.states["car"] = s }
            try w.commit(b, committedMs: f.time)
            return o.disposition
        }
        var sentFirst = false
        for f in fixes {
            #expect(try track(f) == .accepted)
            // The first corner, 60 s after its time: later than the reorder window.
            if f.time == 460_000 {
                #expect(try track(corners[0]) == .late)
                sentFirst = true
            }
        }
        #expect(sentFirst)
        let trip = try #require(try r.trips().first)
        #expect(try r.trips().count == 1)
        // The way through a corner less the diagonal between its
        // neighbours (200 m before and after it): 400 − 200√2 m per corner
        // (to 0.5 %: metres here are on a sphere, fleetd's on the ellipsoid).
        let corner = 400 - 200 * 2.0.squareRoot()
        let tracked = trip.distanceM - trip.lateDetourM
        #expect(abs(tracked - (6000 - 2 * corner)) < 30, "tracked \(tracked)")
        #expect(abs(trip.lateDetourM - corner) < 1, "\(trip.lateDetourM)")
        #expect(trip.jsonLine.contains("\"late_detour_m\":"))

        // The second corner after the trip was stored, then again.
        #expect(try track(corners[1]) == .late)
        let after = try #require(try r.trips().first)
        #expect(abs(after.lateDetourM - 2 * corner) < 1, "\(after.lateDetourM)")
        #expect(abs(after.distanceM - 6000) < 30)
        #expect(abs(after.distanceM - (after.lateDetourM + tracked)) < 1e-6)
        #expect(try track(corners[1]) == .late)
        #expect(try r.trips().first?.lateDetourM == after.lateDetourM)
    }
}
