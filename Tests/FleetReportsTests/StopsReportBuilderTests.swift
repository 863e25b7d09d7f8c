import FleetStorage
import Foundation
import Testing

@testable import FleetReports

/// The stops report's rules, on values, and on the bundled real routes.
@Suite struct StopsReportBuilderTests {
    let m: Int64 = 60_000
    let day0: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    func trip(_ id: Int64, _ device: String, start: Int64, end: Int64, open: Bool = false)
        -> TripRecord
    {
        var t = TripRecord(
            id: id, device: device, vehicle: nil, startTime: start, endTime: end, startLat: 48,
            startLon: 11, endLat: 48 + Double(id) / 100, endLon: 11, startFence: nil,
            endFence: id == 2 ? "depot" : nil, distanceM: 1000, maxSpeedKmh: 50, fixes: 10,
            startOdometerM: 0, endOdometerM: 1000)
        t.open = open
        return t
    }

    @Test func aStopIsTheTimeBetweenTwoTripsWhereTheFirstEnded() {
        let trips = [
            trip(1, "v1", start: day0 + 10 * m, end: day0 + 40 * m),
            trip(2, "v1", start: day0 + 100 * m, end: day0 + 130 * m),
            // Under way: it ends the stop before it.
            trip(3, "v1", start: day0 + 200 * m, end: day0 + 210 * m, open: true),
        ]
        let r = StopsReportBuilder.make(
            trips: trips, idle: [], lastFixMs: ["v1": day0 + 210 * m], names: ["v1": "Van 1"],
            fromMs: day0, toMs: day0 + 1440 * m, nowMs: day0 + 1440 * m, minS: 300)
        #expect(r.stops.count == 2)
        #expect(r.stops[0].startMs == day0 + 40 * m && r.stops[0].endMs == day0 + 100 * m)
        #expect(r.stops[0].durationS == 3600 && !r.stops[0].ongoing && r.stops[0].name == "Van 1")
        #expect(r.stops[0].lat == 48.01 && r.stops[0].fence == nil)
        #expect(r.stops[1].startMs == day0 + 130 * m && r.stops[1].endMs == day0 + 200 * m)
        #expect(r.stops[1].fence == "depot")
    }

    @Test func aStopBelongsToThePeriodItStartsInAndCountsWhole() {
        let trips = [
            // Ended before the period: its stop is the day before's.
            trip(1, "v1", start: day0 - 100 * m, end: day0 - 10 * m),
            trip(2, "v1", start: day0 + 10 * m, end: day0 + 50 * m),
            // Ends in the period, the next trip starts the day after.
            trip(3, "v1", start: day0 + 60 * m, end: day0 + 1400 * m),
            trip(4, "v1", start: day0 + 1500 * m, end: day0 + 1600 * m),
        ]
        let r = StopsReportBuilder.make(
            trips: trips, idle: [], lastFixMs: [:], names: [:], fromMs: day0,
            toMs: day0 + 1440 * m, nowMs: day0 + 3000 * m, minS: 300)
        #expect(r.stops.map(\.startMs) == [day0 + 50 * m, day0 + 1400 * m])
        #expect(r.stops[1].endMs == day0 + 1500 * m)
    }

    @Test func theLastStopIsOngoingUpToTheLastFixAndShortOnesAreLeftOut() {
        let trips = [
            trip(1, "v1", start: day0, end: day0 + 10 * m),
            // 2 minutes later: a stop too short to list.
            trip(2, "v1", start: day0 + 12 * m, end: day0 + 30 * m),
            trip(5, "v2", start: day0, end: day0 + 30 * m),
        ]
        let r = StopsReportBuilder.make(
            trips: trips, idle: [], lastFixMs: ["v1": day0 + 90 * m], names: [:], fromMs: day0,
            toMs: day0 + 1440 * m, nowMs: day0 + 100 * m, minS: 300)
        // v1 still reports where it stopped; v2 has said nothing since:
        // its stop so far is empty, and left out.
        #expect(r.stops.count == 1)
        #expect(r.stops[0].device == "v1" && r.stops[0].ongoing)
        #expect(r.stops[0].startMs == day0 + 30 * m && r.stops[0].endMs == day0 + 90 * m)
        let all = StopsReportBuilder.make(
            trips: trips, idle: [], lastFixMs: ["v1": day0 + 90 * m], names: [:], fromMs: day0,
            toMs: day0 + 1440 * m, nowMs: day0 + 100 * m, minS: 0)
        #expect(all.stops.map(\.durationS) == [120, 3600, 0])
    }

    @Test func idlingWithinAStopIsSummed() {
        let trips = [
            trip(1, "v1", start: day0, end: day0 + 10 * m),
            trip(2, "v1", start: day0 + 70 * m, end: day0 + 80 * m),
        ]
        let idle = [
            // Began as the trip ended (before its recorded end), 15 min.
            UsageEvent(device: "v1", kind: .idleStart, time: day0 + 8 * m, id: 1),
            UsageEvent(device: "v1", kind: .idleEnd, time: day0 + 23 * m, id: 2, durationS: 900),
            // Its start not read: taken from its duration.
            UsageEvent(device: "v1", kind: .idleEnd, time: day0 + 50 * m, id: 3, durationS: 600),
            // Still idling when the next trip began: up to its start.
            UsageEvent(device: "v1", kind: .idleStart, time: day0 + 65 * m, id: 4),
        ]
        let r = StopsReportBuilder.make(
            trips: trips, idle: idle, lastFixMs: [:], names: [:], fromMs: day0,
            toMs: day0 + 1440 * m, nowMs: day0 + 75 * m, minS: 300)
        #expect(r.stops.count == 1)
        // 13 + 10 + 5 minutes.
        #expect(r.stops[0].idleS == 28 * 60)
    }

    @Test func theCSVAndJSONCarryEveryField() throws {
        let r = StopsReport(
            fromMs: day0, toMs: day0 + 1440 * m, generatedMs: day0 + 1440 * m, minS: 300,
            stops: [
                Stop(
                    device: "v1", name: "=cmd", startMs: day0, endMs: day0 + 10 * m, lat: 48.5,
                    lon: -11.25, fence: "depot, north", idleS: 60, ongoing: false)
            ])
        #expect(
            r.csv
                == "device,name,start,end,duration_s,lat,lon,fence,idle_s,ongoing\r\n"
                + "v1,'=cmd,2026-01-01T00:00:00.000Z,2026-01-01T00:10:00.000Z,600,48.5,-11.25,\"depot, north\",60,false\r\n"
        )
        let back = try JSONDecoder().decode(StopsReport.self, from: Data(r.jsonLine.utf8))
        #expect(back == r)
        #expect(r.jsonLine.contains(#""duration_s":600"#))
    }

    /// The bundled real routes: every stop lies between two of the same
    /// vehicle's trips, touching neither, and none is shorter than asked.
    @Test func theBundledRoutesStopsLieBetweenTheirTrips() throws {
        let r = try BundledRoutes.records()
        let from = BundledRoutes.day, to = BundledRoutes.day + 86_400_000
        let report = StopsReportBuilder.make(
            trips: r.trips, idle: r.alerts.compactMap(UsageEvent.init),
            lastFixMs: Dictionary(uniqueKeysWithValues: r.spans.map { ($0.device, $0.lastMs) }),
            names: [:], fromMs: from, toMs: to, nowMs: to, minS: 60)
        #expect(!report.stops.isEmpty)
        for s in report.stops {
            let trips = r.trips.filter { $0.device == s.device }
            #expect(s.durationS >= 60)
            #expect(trips.contains { $0.endTime == s.startMs })
            #expect(s.ongoing || trips.contains { $0.startTime == s.endMs })
            #expect(!trips.contains { $0.startTime < s.endMs && $0.endTime > s.startMs })
        }
    }
}
