import FleetGeo
import Foundation
import Testing

@testable import FleetTracking

/// Golden replays of the bundled real routes against the route zones.
///
/// The expected alerts and trips live in `Golden/<route>.txt`, reviewed by
/// hand. After a deliberate change in behaviour, regenerate them with
/// `FLEETD_UPDATE_GOLDEN=1 swift test --filter RouteReplayTests`, read the diff,
/// and commit it with the reason.
@Suite struct RouteReplayTests {
    static let update = ProcessInfo.processInfo.environment["FLEETD_UPDATE_GOLDEN"] == "1"

    @Test(arguments: RouteData.routes)
    func replayMatchesTheGoldenFile(route: String) throws {
        var replay = Replay(fences: try RouteData.zones())
        replay.feed(try RouteData.fixesParkedAfter(route, device: String(route.prefix(3))))
        let got = replay.lines.joined(separator: "\n") + "\n"
        let url = RouteData.root.appendingPathComponent(
            "Tests/FleetTrackingTests/Golden/\(route).txt")
        if Self.update {
            try got.write(to: url, atomically: true, encoding: .utf8)
        }
        let want = try String(contentsOf: url, encoding: .utf8)
        #expect(got == want, "\(route): replay differs from \(url.path)")
    }

    /// Geodesic lengths (WGS 84, geographiclib) of the routes, prepared by
    /// `scripts/geodesic_lengths.py` into `Golden/geodesic_lengths.txt`; t01's
    /// GNSS jump (fix 618 → 619, 470 m in 1 s) is left out of its length.
    static func geodesicLengths() throws -> [String: Double] {
        let url = RouteData.root.appendingPathComponent(
            "Tests/FleetTrackingTests/Golden/geodesic_lengths.txt")
        var out: [String: Double] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") {
            let f = line.split(separator: " ")
            if f.count >= 2, let v = Double(f[1]) { out[String(f[0])] = v }
        }
        return out
    }

    @Test func t01TripDistanceIsItsGeodesicLengthWithinOnePercent() throws {
        let lengths = try Self.geodesicLengths()
        let reference = try #require(lengths["t01_munich_car_1hz"])
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(try RouteData.fixesParkedAfter("t01_munich_car_1hz", device: "t01"))
        // The jump is held, then confirmed by the fixes after it: no lock-out.
        #expect(replay.dispositions.filter { $0 == .jump }.count == 2)
        #expect(replay.trips.count == 1)
        let trip = try #require(replay.trips.first)
        let error = abs(trip.distanceM - reference) / reference
        #expect(error < 0.01, "trip \(trip.distanceM) m against geodesic \(reference) m")
        // The odometer is the trip: the parked minutes at the end add nothing.
        #expect(abs((replay.states["t01"]?.odometerM ?? 0) - trip.end.odometerM) < 1)
    }

    /// Every bundled route's mileage (its trips' distances, and the
    /// odometer) close to its WGS 84 geodesic length: within 0.5 % for t01
    /// (a 1 Hz car), 2.5 % for t02 (a car at 10 s) and t03 (a bus at 2 s),
    /// whose slow manoeuvres within the odometer gate's 50 m count as the
    /// straight line out of it.
    @Test(arguments: RouteData.routes)
    func mileageIsTheGeodesicLengthWithinHalfAPercent(route: String) throws {
        let reference = try #require(try Self.geodesicLengths()[route])
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(try RouteData.fixesParkedAfter(route, device: "m"))
        let odometer = try #require(replay.states["m"]?.odometerM)
        let error = (odometer - reference) / reference
        #expect(
            abs(error) < (route.hasPrefix("t01") ? 0.005 : 0.025),
            "\(route): odometer \(odometer) m against geodesic \(reference) m")
        let trips = replay.trips.reduce(0) { $0 + $1.distanceM }
        #expect(trips <= odometer + 1)
        #expect(trips >= odometer * 0.99, "\(route): trips \(trips) m, odometer \(odometer) m")
    }

    @Test(arguments: RouteData.routes)
    func aRestartInTheMiddleChangesNothing(route: String) throws {
        let fixes = try RouteData.fixesParkedAfter(route, device: "r")
        let zones = try RouteData.zones()
        var whole = Replay(fences: zones)
        whole.feed(fixes)
        for cut in [fixes.count / 3, fixes.count / 2, 2 * fixes.count / 3] {
            var first = Replay(fences: zones)
            first.feed(fixes[..<cut])
            // A new process: a new tracker, the state as the database gives it back.
            var second = Replay(fences: zones)
            second.states = first.states
            second.reloadStates()
            #expect(
                second.states == first.states, "\(route) cut at \(cut): state not restored exactly")
            second.feed(fixes[cut...])
            #expect(first.alerts + second.alerts == whole.alerts, "\(route) cut at \(cut)")
            #expect(first.trips + second.trips == whole.trips, "\(route) cut at \(cut)")
            #expect(second.states == whole.states, "\(route) cut at \(cut)")
        }
    }
}
