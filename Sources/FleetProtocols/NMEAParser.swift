/// Reads NMEA 0183 sentences strictly: `$`, talker and type, comma fields,
/// `*` and two hex digits that must equal the XOR of every byte between `$`
/// and `*`. Pure; never traps.
public enum NMEAParser {
    public struct Failure: Error, Sendable, Equatable {
        public var reason: RejectReason
        public var detail: String
    }

    /// Splits a datagram into candidate sentences: at line breaks, and at
    /// every `$` (so two fused sentences come apart). Blank pieces are dropped.
    public static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        func cut(_ end: Int) {
            var s = start
            var e = end
            while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
            while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 || bytes[e - 1] == 0x0D { e -= 1 }
            if e > s { out.append(bytes[s..<e]) }
        }
        for (i, b) in bytes.enumerated() {
            if b == 0x0A || b == 0x0D {
                cut(i)
                start = i + 1
            } else if b == 0x24, i > start {
                cut(i)
                start = i
            }
        }
        cut(bytes.count)
        return out
    }

    public static func parse(_ s: ArraySlice<UInt8>) -> Result<NMEASentence, Failure> {
        func bad(_ r: RejectReason, _ d: String) -> Result<NMEASentence, Failure> { .failure(Failure(reason: r, detail: d)) }
        guard s.first == 0x24 else { return bad(.badSentence, "does not start with $") }
        guard let star = s.lastIndex(of: 0x2A) else { return bad(.badSentence, "no *checksum (truncated?)") }
        guard s.endIndex - star == 3, let given = UInt8(String(decoding: s[(star + 1)...], as: UTF8.self), radix: 16) else {
            return bad(.badSentence, "checksum is not two hex digits")
        }
        var sum: UInt8 = 0
        for b in s[(s.startIndex + 1)..<star] {
            guard b >= 0x20, b < 0x7F else { return bad(.badSentence, "non-printable byte") }
            sum ^= b
        }
        guard sum == given else {
            return bad(.badChecksum, "checksum \(hex2(given)), computed \(hex2(sum))")
        }
        let fields = s[(s.startIndex + 1)..<star].split(separator: 0x2C, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        let head = fields[0]
        if head == "PFLID" {
            guard fields.count == 2, JSONFixDecoder.isValidDevice(fields[1]) else {
                return bad(.badDevice, "$PFLID needs one device id of [A-Za-z0-9._:-], 1–64 characters")
            }
            return .success(.identity(fields[1]))
        }
        guard head.utf8.count == 5, head.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) }) else {
            return .success(.other(head))
        }
        switch head.suffix(3) {
        case "RMC": return rmc(fields).mapError { $0 }
        case "GGA": return gga(fields)
        default: return .success(.other(head))
        }
    }

    static func hex2(_ v: UInt8) -> String { (v < 16 ? "0" : "") + String(v, radix: 16, uppercase: true) }

    static func rmc(_ f: [String]) -> Result<NMEASentence, Failure> {
        func bad(_ d: String) -> Result<NMEASentence, Failure> { .failure(Failure(reason: .badNMEAField, detail: "RMC: " + d)) }
        guard f.count >= 10 else { return bad("\(f.count - 1) fields, needs at least 9") }
        guard let tod = timeOfDay(f[1]) else { return bad("time \"\(f[1])\" is not hhmmss(.ss)") }
        guard let days = date(f[9]) else { return bad("date \"\(f[9])\" is not ddmmyy") }
        var r = NMEARMC(time: Int64(days) * 86_400_000 + Int64(tod), timeOfDay: tod, lat: nil, lon: nil, speedKmh: nil, course: nil, valid: false)
        switch (f[3], f[4], f[5], f[6]) {
        case ("", "", "", ""): break
        default:
            guard let lat = coordinate(f[3], f[4], degreeDigits: 2, positive: "N", negative: "S", max: 90) else {
                return bad("latitude \"\(f[3]),\(f[4])\" is not ddmm.mmmm,N|S")
            }
            guard let lon = coordinate(f[5], f[6], degreeDigits: 3, positive: "E", negative: "W", max: 180) else {
                return bad("longitude \"\(f[5]),\(f[6])\" is not dddmm.mmmm,E|W")
            }
            r.lat = lat
            r.lon = lon
        }
        if !f[7].isEmpty {
            guard let knots = Double(f[7]), knots >= 0 else { return bad("speed \"\(f[7])\" is not knots") }
            r.speedKmh = knots * 1.852
        }
        if !f[8].isEmpty {
            guard let c = Double(f[8]), (0...360).contains(c) else { return bad("course \"\(f[8])\" is not degrees") }
            r.course = c
        }
        let mode = f.count > 12 ? f[12] : ""
        r.valid = f[2] == "A" && mode != "N"
        return .success(.rmc(r))
    }

    static func gga(_ f: [String]) -> Result<NMEASentence, Failure> {
        func bad(_ d: String) -> Result<NMEASentence, Failure> { .failure(Failure(reason: .badNMEAField, detail: "GGA: " + d)) }
        guard f.count >= 10 else { return bad("\(f.count - 1) fields, needs at least 9") }
        guard let tod = timeOfDay(f[1]) else { return bad("time \"\(f[1])\" is not hhmmss(.ss)") }
        var g = NMEAGGA(timeOfDay: tod)
        if !f[6].isEmpty {
            guard let q = Int(f[6]), q >= 0 else { return bad("fix quality \"\(f[6])\"") }
            g.quality = q
        }
        if !f[7].isEmpty {
            guard let n = Int(f[7]), (0...255).contains(n) else { return bad("satellites \"\(f[7])\"") }
            g.sats = n
        }
        if !f[8].isEmpty {
            guard let h = Double(f[8]), h >= 0 else { return bad("HDOP \"\(f[8])\"") }
            g.hdop = h
        }
        if !f[9].isEmpty {
            guard let a = Double(f[9]), a.isFinite else { return bad("altitude \"\(f[9])\"") }
            g.altM = a
        }
        return .success(.gga(g))
    }

    /// hhmmss or hhmmss.sss → milliseconds since midnight.
    static func timeOfDay(_ s: String) -> Int? {
        let u = Array(s.utf8)
        guard u.count >= 6, u[0..<6].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let d = u.map { Int($0) - 48 }
        let h = d[0] * 10 + d[1]
        let m = d[2] * 10 + d[3]
        let sec = d[4] * 10 + d[5]
        guard h < 24, m < 60, sec <= 60 else { return nil }
        var ms = 0
        if u.count > 6 {
            guard u[6] == 0x2E, u.count > 7, u[7...].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var scale = 100
            for k in 7..<min(u.count, 10) {
                ms += d[k] * scale
                scale /= 10
            }
        }
        return (h * 3600 + m * 60 + sec) * 1000 + ms
    }

    /// ddmmyy → days since 1970-01-01 (yy < 80 is 20yy, else 19yy).
    static func date(_ s: String) -> Int? {
        let u = Array(s.utf8)
        guard u.count == 6, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let d = u.map { Int($0) - 48 }
        let day = d[0] * 10 + d[1]
        let month = d[2] * 10 + d[3]
        let yy = d[4] * 10 + d[5]
        let year = yy < 80 ? 2000 + yy : 1900 + yy
        guard (1...12).contains(month), day >= 1, day <= RFC3339.daysIn(month: month, year: year) else { return nil }
        return RFC3339.daysFromCivil(year: year, month: month, day: day)
    }

    /// (d)ddmm.mmmm + hemisphere → signed degrees.
    static func coordinate(_ v: String, _ h: String, degreeDigits: Int, positive: String, negative: String, max: Double) -> Double? {
        let u = Array(v.utf8)
        guard u.count >= degreeDigits + 2, h == positive || h == negative,
            u[0..<(degreeDigits + 2)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let deg = Double(String(decoding: u[0..<degreeDigits], as: UTF8.self)),
            let minutes = Double(String(decoding: u[degreeDigits...], as: UTF8.self)), minutes < 60
        else { return nil }
        let value = deg + minutes / 60
        guard value <= max else { return nil }
        return h == negative ? -value : value
    }
}
