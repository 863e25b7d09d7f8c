import FleetStorage
import Foundation
import Testing

@testable import FleetReports

/// The usage report of the bundled routes through the tracker and the
/// bundled fences, held to a golden file (`Golden/usage_bundled.csv`).
/// `FLEETD_UPDATE_GOLDEN=1` rewrites it (and fails the run, so that a
/// rewrite is always looked at).
@Suite struct UsageReportGoldenTests {
    static let golden = BundledRoutes.root.appendingPathComponent(
        "Tests/FleetReportsTests/Golden/usage_bundled.csv")

    func report() throws -> UsageReport {
        let r = try BundledRoutes.records()
        let from = BundledRoutes.day, to = BundledRoutes.day + 86_400_000
        let inputs = UsageInputs(
            always: [], names: ["t03_limerick_bus304": "Bus 304"], trips: r.trips,
            events: r.alerts.compactMap(UsageEvent.init), spans: r.spans, insideAtStart: [:])
        return UsageReportBuilder.make(inputs, fromMs: from, toMs: to, nowMs: to)
    }

    @Test func theBundledRoutesReportMatchesTheGoldenFile() throws {
        let csv = try report().csv
        if ProcessInfo.processInfo.environment["FLEETD_UPDATE_GOLDEN"] == "1" {
            try csv.write(to: Self.golden, atomically: true, encoding: .utf8)
            Issue.record("rewrote \(Self.golden.path): look at it and commit it")
            return
        }
        let expected = try String(contentsOf: Self.golden, encoding: .utf8)
        #expect(
            csv == expected, "the report differs from \(Self.golden.lastPathComponent):\n\(csv)")
    }

    /// The store's way (the alerts of a slice of devices at a time, each
    /// slice once, never all at once) makes the same report as all alerts
    /// in memory.
    @Test func devicesAskedOneByOneMakeTheSameReport() throws {
        let r = try BundledRoutes.records()
        let from = BundledRoutes.day, to = BundledRoutes.day + 86_400_000
        let inputs = UsageInputs(
            always: [], names: ["t03_limerick_bus304": "Bus 304"], trips: r.trips, events: [],
            spans: r.spans, insideAtStart: [:])
        var asked: [ClosedRange<String>] = []
        let streamed = UsageReportBuilder.make(
            inputs, fromMs: from, toMs: to, nowMs: to, slice: 2,
            eventsOf: { (range: ClosedRange<String>) -> [UsageEvent] in
                asked.append(range)
                return r.alerts.filter { range.contains($0.device) }.compactMap(UsageEvent.init)
            })
        let names = BundledRoutes.names.sorted()
        #expect(asked == [names[0]...names[1], names[2]...names[2]])
        #expect(streamed == (try report()))
    }

    @Test func theBundledRoutesReportAgreesWithItsInputs() throws {
        let r = try BundledRoutes.records()
        let report = try report()
        #expect(report.vehicles.map(\.device) == BundledRoutes.names)
        for v in report.vehicles {
            let trips = r.trips.filter { $0.device == v.device }
            #expect(v.trips == trips.count)
            #expect(abs(v.distanceM - trips.reduce(0) { $0 + $1.distanceM }) < 0.1)
            // Each route enters and leaves its box and its hull once.
            #expect(v.fenceVisits.count == 2 && v.fenceVisits.allSatisfy { $0.visits == 1 })
            #expect(v.fenceVisits.allSatisfy { $0.insideS > 0 })
            #expect(v.fixes == r.spans.first { $0.device == v.device }?.count)
        }
        #expect(report.vehicles.last?.name == "Bus 304")
        #expect(report.totals.trips == r.trips.count)
    }
}
