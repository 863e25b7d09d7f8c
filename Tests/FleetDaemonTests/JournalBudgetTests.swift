import FleetStorage
import Testing

@testable import FleetDaemon

/// `alerts.journal_per_s`: the journal gets an entry per alert up to the
/// budget and every `device_alarm`; the rest are summed up in one entry
/// once the summary is a second old.
@Suite struct JournalBudgetTests {
    static func alerts(
        _ ids: ClosedRange<Int64>, type: (Int64) -> String = { _ in "geofence_enter" }
    )
        -> [AlertRecord]
    {
        ids.map {
            AlertRecord(
                id: $0, time: 1_700_000_000_000, device: "truck-\($0)", type: type($0),
                fence: "depot", lat: 48, lon: 11, details: nil)
        }
    }

    @Test func withinTheBudgetEveryAlertGoesAndNothingIsSummedUp() {
        var b = JournalBudget(perS: 100)
        let batch = Self.alerts(1...100)
        #expect(b.take(batch, nowMs: 0) == batch)
        #expect(b.pending == nil)
        #expect(b.due(nowMs: 5_000) == nil && b.takePending() == nil)
    }

    @Test func pastTheBudgetTheFirstAndEveryAlarmGoTheRestAreCountedByType() throws {
        var b = JournalBudget(perS: 10)
        // Ids 1…30: every fifth an exit, 25 an alarm.
        let batch = Self.alerts(1...30) {
            $0 == 25 ? "device_alarm" : $0 % 5 == 0 ? "geofence_exit" : "geofence_enter"
        }
        let kept = b.take(batch, nowMs: 1_000)
        #expect(kept.map(\.id) == Array(1...10) + [25])
        let s = try #require(b.pending)
        #expect(s.total == 19 && s.firstId == 11 && s.lastId == 30 && s.sinceMs == 1_000)
        #expect(
            s.byType == [
                .init(type: "geofence_enter", count: 16), .init(type: "geofence_exit", count: 3),
            ])
        // Half a second on: half a second's budget (5) and the alarm go, the rest add up.
        let more = Self.alerts(31...40) { $0 == 40 ? "device_alarm" : "geofence_enter" }
        #expect(b.take(more, nowMs: 1_500).map(\.id) == [31, 32, 33, 34, 35, 40])
        // Not yet a second old; then due once, with both commits' counts.
        #expect(b.due(nowMs: 1_999) == nil)
        let second = b.due(nowMs: 2_000)
        let due = try #require(second)
        #expect(due.total == 23 && due.firstId == 11 && due.lastId == 39)
        #expect(due.byType.first == .init(type: "geofence_enter", count: 20))
        #expect(b.pending == nil && b.due(nowMs: 9_000) == nil)
    }

    @Test func theBudgetRefillsAtItsRateAndSavesUpOneSecond() {
        var b = JournalBudget(perS: 100)
        #expect(b.take(Self.alerts(1...150), nowMs: 0).count == 100)
        // Half a second later: 50 more.
        #expect(b.take(Self.alerts(151...300), nowMs: 500).count == 50)
        // A minute of quiet saves up one second's worth, no more.
        #expect(b.take(Self.alerts(301...600), nowMs: 60_500).count == 100)
        #expect(b.takePending()?.total == 50 + 100 + 200)
        #expect(b.takePending() == nil)
    }

    @Test func theSummaryEntryNamesCountsTypesAndIds() {
        var b = JournalBudget(perS: 2)
        _ = b.take(Self.alerts(1...5) { $0 == 5 ? "geofence_exit" : "geofence_enter" }, nowMs: 0)
        let fields = Dictionary(uniqueKeysWithValues: b.takePending()?.fields(perS: 2) ?? [])
        #expect(
            fields["MESSAGE"]
                == "3 alerts not written here one by one (more than 2 a second): "
                + "2 geofence_enter, 1 geofence_exit; ids 3 to 5; all are stored (fleetctl alerts)")
        #expect(fields["FLEETD_ALERTS_LEFT_OUT"] == "3")
        #expect(fields["FLEETD_ALERT_FIRST_ID"] == "3" && fields["FLEETD_ALERT_LAST_ID"] == "5")
        #expect(fields["PRIORITY"] == "5" && fields["SYSLOG_IDENTIFIER"] == "fleetd")
    }
}
