import FleetStorage
import Foundation
import Testing

/// Periods and send times of scheduled reports in local time, across the
/// changes of daylight saving.
@Suite struct ReportScheduleTests {
    func ms(_ s: String) -> Int64 {
        Int64(ISO8601DateFormatter().date(from: s)!.timeIntervalSince1970 * 1000)
    }

    @Test func aDayIsLocalMidnightToMidnightAndSentAtItsHour() {
        let s = ReportSchedule(every: .day, atMinutes: 6 * 60, timeZone: "Europe/Berlin")
        let p = s.period(containing: ms("2026-11-26T12:00:00Z"))
        #expect(p.from == ms("2026-11-25T23:00:00Z") && p.to == ms("2026-11-26T23:00:00Z"))
        #expect(s.sendTime(periodEnd: p.to) == ms("2026-11-27T05:00:00Z"))
        #expect(s.label(from: p.from) == "2026-11-26")
        // The day clocks go forward is 23 hours; the day they go back, 25.
        let spring = s.period(containing: ms("2026-03-29T12:00:00Z"))
        #expect(spring.to - spring.from == 23 * 3_600_000)
        let autumn = s.period(containing: ms("2026-10-25T12:00:00Z"))
        #expect(autumn.to - autumn.from == 25 * 3_600_000)
        #expect(s.previousPeriod(before: ms("2026-11-27T08:00:00Z")) == p)
    }

    @Test func aWeekRunsMondayToMondayAndAMonthFirstToFirst() {
        let w = ReportSchedule(every: .week, atMinutes: 7 * 60 + 30, timeZone: "America/New_York")
        let p = w.period(containing: ms("2026-11-27T12:00:00Z"))  // a Friday
        #expect(p.from == ms("2026-11-23T05:00:00Z") && p.to == ms("2026-11-30T05:00:00Z"))
        #expect(w.sendTime(periodEnd: p.to) == ms("2026-11-30T12:30:00Z"))
        #expect(w.label(from: p.from) == "2026-W48")
        let m = ReportSchedule(every: .month, atMinutes: 0, timeZone: "UTC")
        let q = m.period(containing: ms("2026-02-14T00:00:00Z"))
        #expect(q.from == ms("2026-02-01T00:00:00Z") && q.to == ms("2026-03-01T00:00:00Z"))
        #expect(m.sendTime(periodEnd: q.to) == q.to)
        #expect(m.label(from: q.from) == "2026-02")
    }
}
