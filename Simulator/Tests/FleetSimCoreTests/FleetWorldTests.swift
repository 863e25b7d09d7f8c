import FleetGeo
import FleetModel
import FleetProtocols
import Foundation
import Testing

@testable import FleetSimCore

/// The simulated fleet: deterministic, its truth consistent with itself,
/// its devices sending what they recorded.
@Suite struct FleetWorldTests {
    static let routeDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../routes")

    static func routes() throws -> [Route] {
        try ["t01_munich_car_1hz", "t02_visnjan_car", "t03_limerick_bus304"].map {
            try RouteFile.load(routeDir.appendingPathComponent("\($0).csv").path)
        }
    }

    static func scenario(vehicles: Int = 6, hours: Double = 24, seed: UInt64 = 7) -> FleetScenario {
        var s = FleetScenario()
        s.vehicles = vehicles
        s.hours = hours
        s.seed = seed
        return s
    }

    @Test func theSameSeedGivesTheSameWorld() throws {
        let routes = try Self.routes()
        let a = FleetWorld(scenario: Self.scenario(), routes: routes, fences: [])
        let b = FleetWorld(scenario: Self.scenario(), routes: routes, fences: [])
        #expect(a.truth == b.truth)
        #expect(a.devices.map(\.packets) == b.devices.map(\.packets))
        let c = FleetWorld(scenario: Self.scenario(seed: 8), routes: routes, fences: [])
        #expect(c.truth != a.truth)
    }

    @Test func theTruthIsConsistent() throws {
        let w = FleetWorld(scenario: Self.scenario(), routes: try Self.routes(), fences: [])
        let t = w.truth
        #expect(t.vehicles.count == 6)
        // Two yards a vehicle, one for the two on t02 (a loop: its ends meet).
        #expect(w.fences.count == 10)
        #expect(!t.trips.isEmpty && !t.fenceEvents.isEmpty && !t.overspeed.isEmpty)
        for trip in t.trips {
            #expect(trip.startMs < trip.endMs && trip.endMs < t.scenario.endMs - 900_000)
            #expect(trip.distanceM > 1000)
        }
        // A device's trips do not overlap.
        for v in t.vehicles {
            let trips = t.trips.filter { $0.device == v.device }
            for (x, y) in zip(trips, trips.dropFirst()) { #expect(x.endMs < y.startMs) }
            #expect(abs(trips.reduce(0) { $0 + $1.distanceM } - v.distanceM) < 1)
        }
        // Per device and fence, entries and exits alternate, entry first.
        var byKey: [String: [FleetTruth.FenceEvent]] = [:]
        for e in t.fenceEvents { byKey[e.device + " " + e.fence, default: []].append(e) }
        for (key, events) in byKey {
            let sorted = events.sorted { ($0.timeMs, $0.type) < ($1.timeMs, $1.type) }
            for (k, e) in sorted.enumerated() {
                #expect(e.type == (k % 2 == 0 ? "enter" : "exit"), "\(key) event \(k)")
            }
        }
        // Vehicles park outside one of their yards or inside: never both at one end.
        #expect(t.vehicles.allSatisfy { $0.parkedOnEdgeS > 0 })
        for o in t.overspeed {
            #expect(o.maxSpeedKmh > t.scenario.speedLimitKmh)
            #expect(Double(o.endMs - o.startMs) >= t.scenario.overspeedMinS * 1000)
        }
    }

    @Test func devicesSendEveryRecordedFixInOrder() throws {
        let w = FleetWorld(scenario: Self.scenario(), routes: try Self.routes(), fences: [])
        for (d, v) in zip(w.devices, w.truth.vehicles) {
            let fixes = d.packets.flatMap(\.fixes)
            #expect(fixes.count == v.fixes, "\(d.device)")
            #expect(d.packets.filter(\.backlog).reduce(0) { $0 + $1.fixes.count } == v.backlogged)
            // Fix times strictly increase through the packets (backlogs are
            // sent oldest first, before the live fixes after the gap).
            for (x, y) in zip(fixes, fixes.dropFirst()) { #expect(x.time < y.time) }
            // A packet is sent once its newest fix is recorded.
            for p in d.packets { #expect(p.dueMs >= p.fixes.last!.time) }
            for (x, y) in zip(d.packets, d.packets.dropFirst()) { #expect(x.dueMs <= y.dueMs) }
        }
    }

    @Test func noiseIsWhatWasAskedFor() throws {
        var s = Self.scenario(vehicles: 3, hours: 12)
        s.outlierRate = 0
        s.noiseM = 5
        let noisy = FleetWorld(scenario: s, routes: try Self.routes(), fences: [])
        s.noiseM = 0
        let clean = FleetWorld(scenario: s, routes: try Self.routes(), fences: [])
        // The same fixes, displaced by about 5 m per axis.
        var squares = 0.0
        var n = 0
        for (a, b) in zip(noisy.devices, clean.devices) {
            for (x, y) in zip(a.packets.flatMap(\.fixes), b.packets.flatMap(\.fixes)) {
                #expect(x.time == y.time)
                let north = (x.lat - y.lat) * 111_132.954
                squares += north * north
                n += 1
            }
        }
        let sd = (squares / Double(n)).squareRoot()
        #expect(sd > 3.5 && sd < 6.5, "north error sd \(sd) m")
    }

    @Test func coursesKeepTheirLength() throws {
        for r in try Self.routes() {
            let c = Course(route: r)
            let length = c.lengthM
            #expect(abs(c.reversed().lengthM - length) < 0.01)
            #expect(abs(c.shifted(east: 200, north: -150).lengthM - length) / length < 1e-4)
            let trimmed = c.trimmedEnd(metres: 40)
            #expect(length - trimmed.lengthM >= 40 && length - trimmed.lengthM < 80)
        }
    }

    @Test func badScenariosAreNamed() {
        var s = FleetScenario()
        s.vehicles = 0
        #expect(s.problem?.contains("--vehicles") == true)
        s = FleetScenario()
        s.proto = "mqtt"
        #expect(s.problem?.contains("\"mqtt\"") == true)
        s.proto = "osmand"
        #expect(s.problem == nil)
        s = FleetScenario()
        s.gapRate = 1.5
        #expect(s.problem?.contains("--gaps") == true)
        #expect(FleetScenario().problem == nil)
    }
}

/// `fleetsim score` against hand-made answers.
@Suite struct FleetScoreTests {
    static func truth() -> FleetTruth {
        var t = FleetTruth(
            scenario: FleetTruth.Scenario(
                vehicles: 1, hours: 24, seed: 1, proto: "json", startMs: 0, endMs: 86_400_000,
                noiseM: 5, outlierRate: 0, speedLimitKmh: 80, overspeedMinS: 30, marginM: 20,
                fences: 2))
        t.vehicles = [FleetTruth.Vehicle(device: "v", proto: "json", intervalS: 10)]
        t.vehicles[0].parkedOnEdgeS = 43_200
        t.fenceEvents = [
            .init(device: "v", fence: "f", type: "enter", timeMs: 1_000_000),
            .init(device: "v", fence: "f", type: "exit", timeMs: 2_000_000),
            .init(device: "v", fence: "g", type: "enter", timeMs: 3_000_000),
        ]
        t.trips = [
            .init(
                device: "v", startMs: 1_000_000, endMs: 2_000_000, distanceM: 10_000,
                maxSpeedKmh: 60)
        ]
        t.overspeed = [.init(device: "v", startMs: 1_500_000, endMs: 1_560_000, maxSpeedKmh: 90)]
        return t
    }

    @Test func aPerfectAnswerScoresFull() {
        let s = FleetScore(
            truth: Self.truth(),
            alerts: [
                .init(device: "v", type: "geofence_enter", fence: "f", timeMs: 1_010_000),
                .init(device: "v", type: "geofence_exit", fence: "f", timeMs: 1_990_000),
                .init(device: "v", type: "geofence_enter", fence: "g", timeMs: 3_000_000),
                .init(device: "v", type: "overspeed_start", fence: nil, timeMs: 1_500_000),
                .init(device: "other", type: "geofence_enter", fence: "f", timeMs: 5),
            ],
            trips: [
                .init(
                    device: "v", startMs: 1_000_000, endMs: 2_000_000, distanceM: 10_050,
                    maxSpeedKmh: 55)
            ])
        #expect(s.enter.recall == 1 && s.enter.precision == 1)
        #expect(s.exit.recall == 1 && s.exit.precision == 1)
        #expect(s.phantoms == 0)
        #expect(s.trips.matched == 1 && s.trips.reported == 1)
        #expect(abs(s.tripMileageErrorMedian - 0.005) < 1e-9)
        #expect(abs(s.vehicleMileageBias - 0.005) < 1e-9)
        #expect(s.overspeed.recall == 1)
        #expect(s.tripsAverageAboveMax == 0)  // 36.2 km/h average, 55 max
    }

    @Test func missesLateAlertsAndPhantomsCount() {
        let s = FleetScore(
            truth: Self.truth(),
            alerts: [
                // 81 s late: beyond 60 s + 2 × 10 s.
                .init(device: "v", type: "geofence_enter", fence: "f", timeMs: 1_081_000),
                .init(device: "v", type: "geofence_exit", fence: "f", timeMs: 2_079_000),
                .init(device: "v", type: "geofence_enter", fence: "yard-v-a", timeMs: 10),
                .init(device: "v", type: "geofence_exit", fence: "yard-v-a", timeMs: 20),
            ],
            trips: [
                .init(
                    device: "v", startMs: 1_000_000, endMs: 1_400_000, distanceM: 4000,
                    maxSpeedKmh: 30),
                .init(
                    device: "v", startMs: 1_400_000, endMs: 2_000_000, distanceM: 6000,
                    maxSpeedKmh: 30),
            ])
        #expect(s.enter.matched == 0 && s.enter.truth == 2 && s.enter.reported == 2)
        #expect(s.exit.matched == 1 && s.exit.truth == 1)
        #expect(s.phantoms == 3 && s.yardPhantoms == 2)
        #expect(abs(s.yardPhantomsPerParkedDay - 4) < 1e-9)  // 2 over half a day
        // The true trip is found as two: neither covers half of it... the
        // second does (600 of 1 000 s), and the per-vehicle sum is exact.
        #expect(s.trips.reported == 2 && s.trips.matched == 1)
        #expect(s.vehicleMileageErrorMean == 0)
        #expect(s.tripsAverageAboveMax == 1)  // 36 km/h average over a 30 km/h max
        #expect(s.overspeed.recall == 0)
    }
}

/// The simulator speaks every protocol of the registry: what its encoder
/// sends, that protocol's own format reads back as the same fixes.
@Suite struct SimEncoderTests {
    @Test(arguments: TrackerProtocol.allCases)
    func everyProtocolRoundTripsThroughItsFormat(_ p: TrackerProtocol) throws {
        var encoder = SimEncoder()
        let device = SimEncoder.deviceID(p, vehicle: 7)
        let fixes = (0..<3).map { k in
            SimFix(
                time: 1_767_571_200_000 + Int64(k) * 10_000, lat: 48.1 + Double(k) * 0.001,
                lon: 11.5, speedKmh: 36, courseDeg: 90, accuracyM: 5, ignition: true)
        }
        let sender = WireSender(text: "127.0.0.1:9", ip: "127.0.0.1")
        var decoded: [Fix] = []
        switch encoder.encode(p, device: device, fixes: fixes) {
        case .datagram(_, let bytes):
            let format = try #require(p.makeFormat())
            let d = bytes.withUnsafeBufferPointer {
                format.decode($0, sender: { sender }, nowMs: 1_767_571_300_000)
            }
            decoded = d.fixes
        case .stream(let opening, let keys, let bytes):
            // Through a connection's session, unit by unit, as the TCP door reads it.
            let session = try #require(p.makeSession(maxFrame: 4096))
            var buffer = opening + bytes
            var answers = 0
            loop: while true {
                let step = buffer.withUnsafeBufferPointer {
                    session.next($0, nowMs: 1_767_571_300_000, known: { _ in true })
                }
                switch step {
                case .needMore: break loop
                case .close(let r, _): Issue.record("closed: \(r.detail)"); break loop
                case .unit(let consumed, let unit):
                    buffer.removeFirst(consumed)
                    if case .fixes(let d) = unit {
                        decoded += d.fixes
                        answers += d.reply == nil ? 0 : 1
                    }
                }
            }
            #expect(buffer.isEmpty)
            #expect(answers == keys.count)
        case .requests(let targets):
            let format = try #require(p.makeFormat())
            for t in targets {
                let query = String(t.split(separator: "?", maxSplits: 1)[1])
                decoded +=
                    Array(query.utf8).withUnsafeBufferPointer {
                        format.decode($0, sender: { sender }, nowMs: 1_767_571_300_000)
                    }.fixes
            }
        }
        #expect(decoded.map(\.device) == Array(repeating: device, count: 3))
        #expect(decoded.map(\.time) == fixes.map(\.time))
        for (f, s) in zip(decoded, fixes) {
            #expect(abs(f.lat - s.lat) < 1e-5 && abs(f.lon - s.lon) < 1e-5)
        }
    }
}
