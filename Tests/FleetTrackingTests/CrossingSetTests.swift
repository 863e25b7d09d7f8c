import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// The real-track crossing set (`Tests/Fixtures/crossings/`) as a golden
/// test: the three bundled routes replayed against fences drawn around
/// them, with margin 0, dwell 0 and `exit_confirm_fixes = 1`, so that an
/// alert must fall where the GEOS reference puts it. Every reference event
/// matched, nothing else raised. Scored as `scripts/crossings.py` scores a
/// real fleetd: an alert is placed at the first fix at or after its time; a
/// `fragile` event may come one fix either way, an event within five fixes
/// after a `fast_fixes` entry up to five; an enter at fix 0 of a fence the
/// track starts inside is optional.
@Suite struct CrossingSetTests {
    struct Reference: Decodable {
        struct Track: Decodable {
            var fixes: Int
            var fast_fixes: [Int]
            var fences: [String: Fence]
        }
        struct Fence: Decodable {
            var start_inside: Bool
            var events: [Event]
        }
        struct Event: Decodable {
            var type: String
            var index: Int
            var kind: String
            var fragile: Bool
        }
        var tracks: [String: Track]
    }

    static let dir = RouteData.root.appendingPathComponent("Tests/Fixtures/crossings")

    /// What a replay of `track` got wrong: reference events missed, alerts
    /// not in the reference, each as "type fence at fix N".
    static func score(_ track: String) throws -> (missed: [String], unexpected: [String]) {
        let ref = try JSONDecoder().decode(
            Reference.self, from: Data(contentsOf: dir.appendingPathComponent("reference.json")))
        let t = try #require(ref.tracks[track])
        let url = dir.appendingPathComponent("fences.geojson")
        let fences = FenceIndex(
            fences: try GeoJSONFenceLoader.load(Array(try Data(contentsOf: url)), file: url.path))
        var tracker = Tracker(
            fences: fences, settings: TrackerSettings(marginM: 0, dwellS: 0, exitConfirmFixes: 1))
        let fixes = try RouteData.fixes(track, device: "d")
        #expect(fixes.count == t.fixes)
        var state: DeviceState?
        var got: [(type: String, fence: String, index: Int)] = []
        let times = fixes.map(\.time)
        for fix in fixes {
            for a in tracker.process(fix, state: &state).alerts {
                guard a.type == .geofenceEnter || a.type == .geofenceExit, let fence = a.fence,
                    t.fences[fence] != nil
                else { continue }
                let index = times.firstIndex { $0 >= a.time } ?? times.count - 1
                got.append((a.type == .geofenceEnter ? "enter" : "exit", fence, index))
            }
        }
        var missed: [String] = []
        for (fence, f) in t.fences.sorted(by: { $0.key < $1.key }) {
            for e in f.events {
                let slack = e.fragile ? 1 : 0
                let late = t.fast_fixes.contains { (0...5).contains(e.index - $0) } ? 5 : 0
                let range = (e.index - slack - late)...(e.index + slack + late)
                if let k = got.firstIndex(where: {
                    $0.fence == fence && $0.type == e.type && range.contains($0.index)
                }) {
                    got.remove(at: k)
                } else {
                    missed.append("\(e.type) \(fence) at fix \(e.index)")
                }
            }
        }
        let unexpected = got.filter {
            !($0.type == "enter" && $0.index == 0 && t.fences[$0.fence]?.start_inside == true)
        }.map { "\($0.type) \($0.fence) at fix \($0.index)" }
        return (missed, unexpected)
    }

    @Test(arguments: ["t01_munich_car_1hz", "t02_visnjan_car", "t03_limerick_bus304"])
    func everyReferenceEventAndNothingElse(_ track: String) throws {
        let r = try Self.score(track)
        #expect(r.missed.isEmpty, "missed: \(r.missed)")
        #expect(r.unexpected.isEmpty, "unexpected: \(r.unexpected)")
    }
}

/// A vehicle that left its fence once raises one exit: no crossed pair on
/// the way from where it stood (inside) to the fix that showed it leaving.
@Suite struct LeavingFromRestTests {
    @Test func aVehicleLeavingWhereItStoodRaisesOneExitAndNoPair() {
        // 2 km square, margin 0, one fix outside confirms an exit.
        let fence = Fence(
            id: "square", name: "Square",
            shape: .polygons([box(11.0, 48.0, 11.0 + 2000 * mLon, 48.0 + 2000 * mLat)]),
            marginM: 0)
        var tracker = Tracker(
            fences: FenceIndex(fences: [fence]),
            settings: TrackerSettings(marginM: 0, dwellS: 0, exitConfirmFixes: 1))
        let t0: Int64 = 1_800_000_000_000
        func fix(_ s: Int64, north: Double, accuracy: Double = 5) -> Fix {
            Fix(
                device: "d", time: t0 + s * 1000, lat: 48.0 + north * mLat,
                lon: 11.0 + 1000 * mLon, accuracyM: accuracy)
        }
        // Standing 100 m inside the south edge; one vague fix 150 m outside
        // (accuracy 2 km: ignored); back; then three fixes 400 m outside,
        // 30 s apart.
        var fixes = (0..<6).map { fix(Int64($0) * 30, north: 100) }
        fixes.append(fix(180, north: -150, accuracy: 2000))
        fixes.append(fix(210, north: 100))
        fixes += (0..<3).map { fix(240 + Int64($0) * 30, north: -400) }
        var state: DeviceState?
        var alerts: [Alert] = []
        for f in fixes { alerts += tracker.process(f, state: &state).alerts }
        let fenceAlerts = alerts.filter { $0.fence == "square" }
        #expect(fenceAlerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(fenceAlerts.allSatisfy { !$0.crossed })
    }
}
