import FleetStorage
import Testing

@testable import FleetReports

/// The usage report's rules, on values.
@Suite struct UsageReportBuilderTests {
    let h: Int64 = 3_600_000
    let day0: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    func trip(_ device: String, start: Int64, end: Int64, km: Double, max: Double = 50)
        -> TripRecord
    {
        TripRecord(
            id: start, device: device, vehicle: nil, startTime: start, endTime: end, startLat: 48,
            startLon: 11, endLat: 48.1, endLon: 11, startFence: nil, endFence: nil,
            distanceM: km * 1000, maxSpeedKmh: max, fixes: 10, startOdometerM: 0,
            endOdometerM: km * 1000)
    }

    func alert(
        _ id: Int64, _ device: String, _ type: String, at: Int64, fence: String? = nil,
        details: String? = nil
    ) -> AlertRecord {
        AlertRecord(
            id: id, time: at, device: device, type: type, fence: fence, lat: 48, lon: 11,
            details: details)
    }

    func inputs(
        always: Set<String> = [], trips: [TripRecord] = [], alerts: [AlertRecord] = [],
        spans: [PositionSpan] = [], inside: [String: [String]] = [:]
    ) -> UsageInputs {
        UsageInputs(
            always: always, names: ["v1": "Van 1"], trips: trips,
            events: alerts.compactMap(UsageEvent.init), spans: spans, insideAtStart: inside)
    }

    @Test func aPeriodWithNoDataIsAReportOfZerosForTheRegisteredVehicles() {
        let r = UsageReportBuilder.make(
            inputs(always: ["v1"]), fromMs: day0, toMs: day0 + 24 * h, nowMs: day0 + 48 * h)
        #expect(r.vehicles.count == 1)
        let v = r.vehicles[0]
        #expect(v.device == "v1" && v.name == "Van 1")
        #expect(v.distanceM == 0 && v.drivingS == 0 && v.trips == 0 && v.parkedS == 0)
        #expect(v.firstFixMs == nil && v.fenceVisits.isEmpty)
        #expect(r.totals.device == nil && r.totals.trips == 0)
        let empty = UsageReportBuilder.make(
            inputs(), fromMs: day0, toMs: day0 + h, nowMs: day0 + 2 * h)
        #expect(empty.vehicles.isEmpty && empty.totals.distanceM == 0)
    }

    @Test func tripsCountInThePeriodTheyStartIn() {
        let trips = [
            trip("v1", start: day0 + 1 * h, end: day0 + 2 * h, km: 30, max: 90),
            // Starts in the period, ends after it: counted whole.
            trip("v1", start: day0 + 23 * h, end: day0 + 25 * h, km: 100),
            // Started the day before: not counted.
            trip("v1", start: day0 - 2 * h, end: day0 + h / 2, km: 7),
        ]
        let spans = [
            PositionSpan(
                device: "v1", firstMs: day0 + h, lastMs: day0 + 24 * h - 1, count: 100,
                maxSpeedKmh: 80)
        ]
        let r = UsageReportBuilder.make(
            inputs(trips: trips, spans: spans), fromMs: day0, toMs: day0 + 24 * h,
            nowMs: day0 + 48 * h)
        let v = r.vehicles[0]
        #expect(v.trips == 2)
        #expect(v.distanceM == 130_000)
        #expect(v.drivingS == 3 * 3600)
        // From the first fix (01:00) to the end of the period (24:00), less 3 h driving.
        #expect(v.parkedS == 20 * 3600)
        // The higher of the fixes' top speed and the trips' maxima.
        #expect(v.maxSpeedKmh == 90)
        // Adjacent periods add up.
        let next = UsageReportBuilder.make(
            inputs(trips: trips), fromMs: day0 + 24 * h, toMs: day0 + 48 * h,
            nowMs: day0 + 48 * h)
        #expect(next.vehicles.first?.trips ?? 0 == 0)
    }

    @Test func fenceVisitsAreClippedToThePeriodAndCountVisitsUnderWay() {
        let alerts = [
            // Inside "depot" since before the period: leaves at 02:00.
            alert(1, "v1", "geofence_exit", at: day0 + 2 * h, fence: "depot"),
            alert(2, "v1", "geofence_enter", at: day0 + 5 * h, fence: "depot"),
            alert(3, "v1", "geofence_exit", at: day0 + 6 * h, fence: "depot"),
            // Enters "site" at 22:00 and is still there when the period ends.
            alert(4, "v1", "geofence_enter", at: day0 + 22 * h, fence: "site"),
        ]
        let r = UsageReportBuilder.make(
            inputs(alerts: alerts, inside: ["v1": ["depot"]]), fromMs: day0,
            toMs: day0 + 24 * h, nowMs: day0 + 30 * h)
        let visits = r.vehicles[0].fenceVisits
        #expect(
            visits == [
                FenceVisits(fence: "depot", visits: 2, insideS: 3 * 3600),
                FenceVisits(fence: "site", visits: 1, insideS: 2 * 3600),
            ])
        // Made at 23:00: time after now is not counted.
        let early = UsageReportBuilder.make(
            inputs(alerts: alerts, inside: ["v1": ["depot"]]), fromMs: day0,
            toMs: day0 + 24 * h, nowMs: day0 + 23 * h)
        #expect(early.vehicles[0].fenceVisits.last?.insideS == 3600)
    }

    @Test func overspeedEpisodesAndTheirTimeOverTheLimit() {
        let alerts = [
            // Began 10 min before the period (duration 15 min): 5 min counted, not the episode.
            alert(
                1, "v1", "overspeed_end", at: day0 + 5 * 60_000, details: #"{"duration_s":900}"#),
            alert(2, "v1", "overspeed_start", at: day0 + h),
            alert(
                3, "v1", "overspeed_end", at: day0 + h + 120_000,
                details: #"{"duration_s":120}"#),
            // Still over the limit at the last fix (12:01): counted up to it.
            alert(4, "v1", "overspeed_start", at: day0 + 12 * h),
        ]
        let spans = [
            PositionSpan(
                device: "v1", firstMs: day0, lastMs: day0 + 12 * h + 60_000, count: 9,
                maxSpeedKmh: 120)
        ]
        let r = UsageReportBuilder.make(
            inputs(alerts: alerts, spans: spans), fromMs: day0, toMs: day0 + 24 * h,
            nowMs: day0 + 48 * h)
        #expect(r.vehicles[0].overspeedEpisodes == 2)
        #expect(r.vehicles[0].overspeedS == 5 * 60 + 120 + 60)
    }

    @Test func idlingEpisodesAndTheirTimeAreSummedPerVehicleAndInTheTotals() {
        let alerts = [
            alert(1, "v1", "idle_start", at: day0 + h),
            alert(
                2, "v1", "idle_end", at: day0 + h + 600_000, details: #"{"duration_s":600}"#),
            alert(3, "v1", "ignition_off", at: day0 + h + 600_000),
            // Still idling at the last fix (18:05): counted up to it.
            alert(4, "v1", "idle_start", at: day0 + 18 * h),
        ]
        let spans = [
            PositionSpan(
                device: "v1", firstMs: day0, lastMs: day0 + 18 * h + 300_000, count: 9,
                maxSpeedKmh: 0)
        ]
        let r = UsageReportBuilder.make(
            inputs(alerts: alerts, spans: spans), fromMs: day0, toMs: day0 + 24 * h,
            nowMs: day0 + 48 * h)
        #expect(r.vehicles[0].idleEpisodes == 2)
        #expect(r.vehicles[0].idleS == 600 + 300)
        #expect(r.totals.idleEpisodes == 2 && r.totals.idleS == 900)
        #expect(r.csv.split(separator: "\r\n")[1].hasSuffix(",2,900"))
    }

    @Test func tripsWithADriversKeyAreSummedByDriver() {
        var a = trip("v1", start: day0 + h, end: day0 + 2 * h, km: 10)
        a.driver = "K1"
        var b = trip("v2", start: day0 + 3 * h, end: day0 + 3 * h + 1_800_000, km: 5)
        b.driver = "K1"
        let c = trip("v2", start: day0 + 5 * h, end: day0 + 6 * h, km: 7)
        var early = trip("v1", start: day0 - h, end: day0 - 1, km: 3)
        early.driver = "K2"  // before the period
        let r = UsageReportBuilder.make(
            inputs(trips: [a, b, c, early]), fromMs: day0, toMs: day0 + 24 * h,
            nowMs: day0 + 48 * h)
        #expect(
            r.drivers == [
                DriverUsage(
                    driver: "K1", trips: 2, distanceM: 15_000, drivingS: 5400,
                    devices: ["v1", "v2"])
            ])
        #expect(r.jsonLine.contains(#""drivers":[{"devices":["v1","v2"],"distance_m":15000"#))
    }

    @Test func aTripUnderWayAddsItsDrivingTimeButNotItselfNorItsDistance() {
        let alerts = [alert(1, "v1", "trip_start", at: day0 + h)]
        let spans = [
            PositionSpan(
                device: "v1", firstMs: day0 + h - 60_000, lastMs: day0 + 2 * h,
                count: 60, maxSpeedKmh: 50)
        ]
        let r = UsageReportBuilder.make(
            inputs(alerts: alerts, spans: spans), fromMs: day0, toMs: day0 + 24 * h,
            nowMs: day0 + 2 * h)
        let v = r.vehicles[0]
        #expect(v.trips == 0 && v.distanceM == 0)
        #expect(v.drivingS == 3600)
        #expect(v.parkedS == 60)
    }

    @Test func theJSONAndCSVCarryEveryField() throws {
        let r = UsageReportBuilder.make(
            inputs(
                always: ["v1"], trips: [trip("v1", start: day0 + h, end: day0 + 2 * h, km: 12.5)],
                alerts: [alert(1, "v1", "geofence_enter", at: day0 + 3 * h, fence: "a,b")]),
            fromMs: day0, toMs: day0 + 24 * h, nowMs: day0 + 24 * h)
        let back = try RecordCoding.read(UsageReport.self, from: Array(r.jsonLine.utf8))
        #expect(back == r)
        #expect(
            r.jsonLine.hasPrefix(#"{"drivers":[],"from":"2026-01-01T00:00:00.000Z","generated_at""#)
        )
        let lines = r.csv.split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)  // header, v1, totals, and the final CRLF's empty line
        #expect(lines[0].hasPrefix("device,name,distance_m,driving_s,trips,parked_s"))
        // A fence name with a comma is quoted (RFC 4180).
        #expect(lines[1].hasPrefix("v1,Van 1,12500,3600,1,"))
        #expect(lines[1].contains(#""a,b=1/75600""#))
        #expect(lines[2].hasPrefix(",total,12500,3600,1,"))
    }
}
