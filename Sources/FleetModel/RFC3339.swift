/// RFC 3339 timestamps ↔ Unix milliseconds, without Foundation.
///
/// Accepts `YYYY-MM-DD('T'|'t'|' ')hh:mm:ss[.fraction]('Z'|'z'|±hh:mm)`
/// (RFC 3339 §5.6); fractions beyond milliseconds are truncated. A leap
/// second (`:60`) is read as the first millisecond after `:59.999`.
public enum RFC3339 {
    /// Milliseconds since the epoch, or nil when `bytes` is not RFC 3339.
    public static func parse<C: Collection<UInt8>>(_ bytes: C) -> Int64? where C.Index == Int {
        let b = Array(bytes)
        guard b.count >= 20 else { return nil }
        func num(_ at: Int, _ n: Int) -> Int? {
            var v = 0
            for i in at..<(at + n) {
                let d = Int(b[i]) - 48
                guard d >= 0, d <= 9 else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard let year = num(0, 4), b[4] == 0x2D, let month = num(5, 2), b[7] == 0x2D,
            let day = num(8, 2), b[10] == 0x54 || b[10] == 0x74 || b[10] == 0x20,
            let hour = num(11, 2), b[13] == 0x3A, let minute = num(14, 2), b[16] == 0x3A,
            let second = num(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        var i = 19
        var millis = 0
        if b[i] == 0x2E {
            i += 1
            let start = i
            var scale = 100
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                millis += Int(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offsetMinutes = 0
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            guard i + 6 == b.count, let oh = num(i + 1, 2), b[i + 3] == 0x3A,
                let om = num(i + 4, 2),
                oh <= 23, om <= 59
            else { return nil }
            offsetMinutes = (oh * 60 + om) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds =
            Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second)
            - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// Formats milliseconds since the epoch as `YYYY-MM-DDThh:mm:ss.sssZ`.
    public static func format(millis: Int64) -> String {
        var ms = millis % 1000
        var secs = millis / 1000
        if ms < 0 {
            ms += 1000
            secs -= 1
        }
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 {
            rem += 86400
            days -= 1
        }
        let (y, m, d) = civilFromDays(Int(days))
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(Int(rem / 3600), 2)):"
            + "\(pad(Int(rem % 3600 / 60), 2)):\(pad(Int(rem % 60), 2)).\(pad(Int(ms), 3))Z"
    }

    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Unix milliseconds of a UTC date and time (fields already checked
    /// to be in range).
    public static func epochMs(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) -> Int64 {
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
