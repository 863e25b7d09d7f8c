import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking
import Testing

@testable import FleetDaemon

/// The trips under way as the API lists them: the newest per device after
/// each commit, their start's fences listed when read, against the fences
/// in force then.
@Suite struct TripBoardTests {
    static func square(_ id: String, _ name: String, _ x0: Double, _ x1: Double) -> Fence {
        let ring = Ring(
            [(x0, 0.0), (x1, 0.0), (x1, 1.0), (x0, 1.0), (x0, 0.0)].map {
                Coordinate(lat: $0.1, lon: $0.0)
            })
        return Fence(id: id, name: name, shape: .polygons([Polygon(shell: ring, holes: [])]))
    }

    static func trip(_ device: String, startLon: Double, lastLon: Double, at t: Int64) -> OpenTrip {
        OpenTrip(
            device: device,
            start: Waypoint(time: t, lat: 0.5, lon: startLon, odometerM: 0, fixNo: 1),
            last: Waypoint(time: t + 60_000, lat: 0.5, lon: lastLon, odometerM: 900, fixNo: 9),
            maxSpeedKmh: 50, startFence: nil)
    }

    static func commit(_ news: [(String, OpenTrip?)]) -> Commit {
        var batch = WriteBatch()
        batch.tripsUnderWay = news.map { (device: $0.0, trip: $0.1) }
        return Commit(batch: batch, alerts: [], arrivals: [], committedMs: 0)
    }

    @Test func listsTheStartFencesWhenReadAndFollowsAReload() {
        let depots = FenceIndex(fences: [
            Self.square("dep-2", "Yard", 0, 2), Self.square("dep-1", "North depot", 0, 1),
        ])
        let board = TripBoard(states: [:], tracker: Tracker(fences: depots))
        board.committed(
            Self.commit([
                ("a", Self.trip("a", startLon: 0.5, lastLon: 3, at: 1_000)),
                ("b", Self.trip("b", startLon: 1.5, lastLon: 3, at: 2_000)),
                ("c", Self.trip("c", startLon: 5, lastLon: 6, at: 3_000)),
            ]))
        var open = board.records(TripFilter())
        #expect(open.map(\.device) == ["a", "b", "c"])
        #expect(open.map(\.startFence) == ["North depot, Yard", "Yard", nil])
        #expect(open.map(\.startFenceId) == ["dep-1, dep-2", "dep-2", nil])
        #expect(open.allSatisfy { $0.open && $0.endFence == nil })

        // A later fix moves a trip on; an ended trip leaves the board.
        board.committed(
            Self.commit([("a", Self.trip("a", startLon: 0.5, lastLon: 4, at: 1_000)), ("b", nil)]))
        open = board.records(TripFilter())
        #expect(open.map(\.device) == ["a", "c"])
        #expect(open.first?.endLon == 4)

        // Fences reloaded: the starts are listed against the new ones.
        board.replaceFences(FenceIndex(fences: [Self.square("gate", "Gate", 0, 1)]))
        open = board.records(TripFilter(device: "a"))
        #expect(open.map(\.startFence) == ["Gate"])
        #expect(open.map(\.startFenceId) == ["gate"])
    }
}
