import Foundation

/// When a scheduled report is made and for what period: every day, week
/// (ISO: Monday to Monday) or month, in local time of `timeZone`, sent at
/// local time `atMinutes` of the day its period ends (`every = "day"`,
/// `at = "06:00"`: yesterday's report at six this morning). Daylight
/// saving is followed: a day may be 23 or 25 hours long.
public struct ReportSchedule: Sendable, Equatable {
    public enum Every: String, Sendable, CaseIterable {
        case day, week, month
    }

    public var every: Every
    /// Minutes after local midnight, 0…1439.
    public var atMinutes: Int
    /// IANA name.
    public var timeZone: String

    public init(every: Every, atMinutes: Int, timeZone: String) {
        self.every = every
        self.atMinutes = atMinutes
        self.timeZone = timeZone
    }

    private var calendar: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        c.firstWeekday = 2  // Monday
        c.minimumDaysInFirstWeek = 4
        return c
    }

    private static func ms(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1000).rounded()) }
    private static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    /// The period holding instant `ms`: `[from, to)` in Unix ms, from local
    /// midnight to local midnight.
    public func period(containing ms: Int64) -> (from: Int64, to: Int64) {
        let cal = calendar
        let d = Self.date(ms)
        let start: Date
        let next: Date
        switch every {
        case .day:
            start = cal.startOfDay(for: d)
            next = cal.date(byAdding: .day, value: 1, to: start) ?? start
        case .week:
            start =
                cal.dateInterval(of: .weekOfYear, for: d)?.start ?? cal.startOfDay(for: d)
            next = cal.date(byAdding: .day, value: 7, to: start) ?? start
        case .month:
            start = cal.dateInterval(of: .month, for: d)?.start ?? cal.startOfDay(for: d)
            next = cal.date(byAdding: .month, value: 1, to: start) ?? start
        }
        return (Self.ms(start), Self.ms(cal.startOfDay(for: next)))
    }

    /// When the report of the period ending at `periodEnd` is sent: local
    /// time `atMinutes` of the day `periodEnd` begins (a time skipped by a
    /// clock change is taken as the next that exists).
    public func sendTime(periodEnd: Int64) -> Int64 {
        let cal = calendar
        let day = cal.startOfDay(for: Self.date(periodEnd))
        let at =
            cal.date(bySettingHour: atMinutes / 60, minute: atMinutes % 60, second: 0, of: day)
            ?? day.addingTimeInterval(Double(atMinutes) * 60)
        return Self.ms(at)
    }

    /// The period ending before the one holding `ms` (the last complete one).
    public func previousPeriod(before ms: Int64) -> (from: Int64, to: Int64) {
        let current = period(containing: ms)
        return period(containing: current.from - 1)
    }

    /// `2026-11-26` (a day), `2026-W48` (a week), `2026-11` (a month): the
    /// period starting at `from`, in the schedule's time zone.
    public func label(from: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = calendar.timeZone
        switch every {
        case .day: f.dateFormat = "yyyy-MM-dd"
        case .week: f.dateFormat = "YYYY-'W'ww"
        case .month: f.dateFormat = "yyyy-MM"
        }
        var c = calendar
        c.locale = f.locale
        f.calendar = c
        return f.string(from: Self.date(from))
    }
}

/// One `[[reports]]` table: a report mailed on a schedule.
public struct ReportRule: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case usage, stops
    }

    /// 1–64 of `[A-Za-z0-9_-]`; its outbox cursor is `report:NAME`.
    public var name: String
    public var kind: Kind
    public var schedule: ReportSchedule
    /// Addresses (`MailAddress`).
    public var to: [String]
    /// Only these devices (and those of `groups`); both empty: all.
    public var devices: [String]
    /// Only these groups' vehicles (and `devices`); both empty: all.
    public var groups: [String] = []
    /// The stops report's shortest stop, seconds.
    public var stopMinS: Double

    public init(
        name: String, kind: Kind, schedule: ReportSchedule, to: [String], devices: [String] = [],
        stopMinS: Double = 300
    ) {
        self.name = name
        self.kind = kind
        self.schedule = schedule
        self.to = to
        self.devices = devices
        self.stopMinS = stopMinS
    }

    /// The name of this report's cursor among the mail rules'.
    public var cursorName: String { "report:" + name }
}
