import FleetGeo
import FleetProtocols
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
}
