import Foundation

/// Builds NMEA 0183 sentences, as GPS receivers send them. Used by the load
/// generator and the tests (`NMEAParser` is the reading side).
public enum NMEAEncoder {
    /// `sentence` (from its `$`, without checksum) followed by `*hh`: the XOR
    /// of the characters between `$` and `*`, two upper-case hex digits.
    public static func checksummed(_ sentence: String) -> String {
        var sum: UInt8 = 0
        for b in sentence.utf8.dropFirst() { sum ^= b }
        return sentence + "*" + (sum < 16 ? "0" : "") + String(sum, radix: 16, uppercase: true)
    }

    /// `hhmmss.00` and `ddmmyy` (UTC) of a Unix time in ms.
    public static func clock(ms: Int64) -> (time: String, date: String) {
        var t = time_t(ms / 1000)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (
            "\(two(tm.tm_hour))\(two(tm.tm_min))\(two(tm.tm_sec)).00",
            "\(two(tm.tm_mday))\(two(tm.tm_mon + 1))\(two(tm.tm_year % 100))"
        )
    }

    /// `ddmm.mmmmm,N|S`: a latitude in degrees and decimal minutes.
    public static func latitude(_ v: Double) -> String {
        angle(v, degreeDigits: 2) + (v < 0 ? ",S" : ",N")
    }

    /// `dddmm.mmmmm,E|W`: a longitude in degrees and decimal minutes.
    public static func longitude(_ v: Double) -> String {
        angle(v, degreeDigits: 3) + (v < 0 ? ",W" : ",E")
    }

    private static func angle(_ v: Double, degreeDigits: Int) -> String {
        let a = abs(v)
        let deg = Int(a)
        let minutes = (a - Double(deg)) * 60
        var d = String(deg)
        while d.count < degreeDigits { d = "0" + d }
        return d + (minutes < 10 ? "0" : "") + String(format: "%.5f", minutes)
    }
}
