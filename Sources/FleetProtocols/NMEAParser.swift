import FleetJSON
import FleetModel

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
            while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 || bytes[e - 1] == 0x0D {
                e -= 1
            }
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
        func bad(_ r: RejectReason, _ d: String) -> Result<NMEASentence, Failure> {
            .failure(Failure(reason: r, detail: d))
        }
        guard s.first == 0x24 else { return bad(.badSentence, "does not start with $") }
        guard let star = s.lastIndex(of: 0x2A) else {
            return bad(.badSentence, "no *checksum (truncated?)")
        }
        guard s.endIndex - star == 3,
            let given = UInt8(String(decoding: s[(star + 1)...], as: UTF8.self), radix: 16)
        else {
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
        var fields: [Field] = []
        fields.reserveCapacity(20)
        var from = s.startIndex + 1
        for i in from..<star where s[i] == 0x2C {
            fields.append(s[from..<i])
            from = i + 1
        }
        fields.append(s[from..<star])
        let head = fields[0]
        if head.elementsEqual("PFLID".utf8) {
            let id = fields.count == 2 ? String(decoding: fields[1], as: UTF8.self) : ""
            guard JSONFixDecoder.isValidDevice(id) else {
                return bad(
                    .badDevice, "$PFLID needs one device id of [A-Za-z0-9._:-], 1–64 characters")
            }
            return .success(.identity(id))
        }
        guard head.count == 5, head.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            return .success(.other(String(decoding: head, as: UTF8.self)))
        }
        let type = head.suffix(3)
        if type.elementsEqual("RMC".utf8) { return rmc(fields) }
        if type.elementsEqual("GGA".utf8) { return gga(fields) }
        return .success(.other(String(decoding: head, as: UTF8.self)))
    }

    typealias Field = ArraySlice<UInt8>

    static func text(_ f: Field) -> String { String(decoding: f, as: UTF8.self) }

    static func hex2(_ v: UInt8) -> String {
        (v < 16 ? "0" : "") + String(v, radix: 16, uppercase: true)
    }

    static func rmc(_ f: [Field]) -> Result<NMEASentence, Failure> {
        func bad(_ d: String) -> Result<NMEASentence, Failure> {
            .failure(Failure(reason: .badNMEAField, detail: "RMC: " + d))
        }
        guard f.count >= 10 else { return bad("\(f.count - 1) fields, needs at least 9") }
        guard let tod = timeOfDay(f[1]) else {
            return bad("time \"\(text(f[1]))\" is not hhmmss(.ss)")
        }
        guard let days = date(f[9]) else { return bad("date \"\(text(f[9]))\" is not ddmmyy") }
        var r = NMEARMC(
            time: Int64(days) * 86_400_000 + Int64(tod), timeOfDay: tod, lat: nil, lon: nil,
            speedKmh: nil, course: nil,
            valid: false)
        if !(f[3].isEmpty && f[4].isEmpty && f[5].isEmpty && f[6].isEmpty) {
            guard
                let lat = coordinate(
                    f[3], f[4], degreeDigits: 2, positive: 0x4E, negative: 0x53, max: 90)
            else {
                return bad("latitude \"\(text(f[3])),\(text(f[4]))\" is not ddmm.mmmm,N|S")
            }
            guard
                let lon = coordinate(
                    f[5], f[6], degreeDigits: 3, positive: 0x45, negative: 0x57, max: 180)
            else {
                return bad("longitude \"\(text(f[5])),\(text(f[6]))\" is not dddmm.mmmm,E|W")
            }
            r.lat = lat
            r.lon = lon
        }
        if !f[7].isEmpty {
            guard let knots = decimal(f[7]) else {
                return bad("speed \"\(text(f[7]))\" is not knots")
            }
            r.speedKmh = knots * 1.852
        }
        if !f[8].isEmpty {
            guard let c = decimal(f[8]), c <= 360 else {
                return bad("course \"\(text(f[8]))\" is not degrees")
            }
            r.course = c
        }
        let modeN = f.count > 12 && f[12].elementsEqual([0x4E])
        r.valid = f[2].elementsEqual([0x41]) && !modeN
        return .success(.rmc(r))
    }

    static func gga(_ f: [Field]) -> Result<NMEASentence, Failure> {
        func bad(_ d: String) -> Result<NMEASentence, Failure> {
            .failure(Failure(reason: .badNMEAField, detail: "GGA: " + d))
        }
        guard f.count >= 10 else { return bad("\(f.count - 1) fields, needs at least 9") }
        guard let tod = timeOfDay(f[1]) else {
            return bad("time \"\(text(f[1]))\" is not hhmmss(.ss)")
        }
        var g = NMEAGGA(timeOfDay: tod)
        if !f[6].isEmpty {
            guard let q = integer(f[6]) else { return bad("fix quality \"\(text(f[6]))\"") }
            g.quality = q
        }
        if !f[7].isEmpty {
            guard let n = integer(f[7]), n <= 255 else {
                return bad("satellites \"\(text(f[7]))\"")
            }
            g.sats = n
        }
        if !f[8].isEmpty {
            guard let h = decimal(f[8]) else { return bad("HDOP \"\(text(f[8]))\"") }
            g.hdop = h
        }
        if !f[9].isEmpty {
            guard let a = decimal(f[9], signed: true) else {
                return bad("altitude \"\(text(f[9]))\"")
            }
            g.altM = a
        }
        return .success(.gga(g))
    }

    /// Digits only → integer (at most 9 digits).
    static func integer(_ f: Field) -> Int? {
        guard !f.isEmpty, f.count <= 9 else { return nil }
        var v = 0
        for b in f {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
        }
        return v
    }

    /// `[-]digits[.digits]` → Double, exactly (at most 15 significant digits), else nil.
    static func decimal(_ f: Field, signed: Bool = false) -> Double? {
        var i = f.startIndex
        var negative = false
        if signed, i < f.endIndex, f[i] == 0x2D {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var point = false
        var any = false
        while i < f.endIndex {
            let b = f[i]
            if b == 0x2E, !point {
                point = true
            } else if b >= 0x30 && b <= 0x39 {
                any = true
                if mantissa != 0 || b != 0x30 { digits += 1 }
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(b - 0x30)
                if point { scale += 1 }
            } else {
                return nil
            }
            i += 1
        }
        guard any, scale <= 22 else { return nil }
        let v = Double(mantissa) / JSONReader.powersOfTen[scale]
        return negative ? -v : v
    }

    /// hhmmss or hhmmss.sss → milliseconds since midnight.
    static func timeOfDay(_ f: Field) -> Int? {
        guard f.count >= 6 else { return nil }
        let i = f.startIndex
        func digit(_ k: Int) -> Int? {
            let b = f[i + k]
            return b >= 0x30 && b <= 0x39 ? Int(b - 0x30) : nil
        }
        guard let h1 = digit(0), let h2 = digit(1), let m1 = digit(2), let m2 = digit(3),
            let s1 = digit(4),
            let s2 = digit(5)
        else { return nil }
        let h = h1 * 10 + h2
        let m = m1 * 10 + m2
        let sec = s1 * 10 + s2
        guard h < 24, m < 60, sec <= 60 else { return nil }
        var ms = 0
        if f.count > 6 {
            guard f[i + 6] == 0x2E, f.count > 7 else { return nil }
            var scale = 100
            for k in 7..<f.count {
                guard let d = digit(k) else { return nil }
                ms += d * scale
                scale /= 10
            }
        }
        return (h * 3600 + m * 60 + sec) * 1000 + ms
    }

    /// ddmmyy → days since 1970-01-01 (yy < 80 is 20yy, else 19yy).
    static func date(_ f: Field) -> Int? {
        guard f.count == 6, let v = integer(f) else { return nil }
        let day = v / 10000
        let month = v / 100 % 100
        let yy = v % 100
        let year = yy < 80 ? 2000 + yy : 1900 + yy
        guard (1...12).contains(month), day >= 1, day <= RFC3339.daysIn(month: month, year: year)
        else { return nil }
        return RFC3339.daysFromCivil(year: year, month: month, day: day)
    }

    /// (d)ddmm.mmmm + hemisphere letter → signed degrees.
    static func coordinate(
        _ v: Field, _ h: Field, degreeDigits: Int, positive: UInt8, negative: UInt8, max: Double
    ) -> Double? {
        guard v.count >= degreeDigits + 2, h.count == 1, let hemisphere = h.first,
            hemisphere == positive || hemisphere == negative,
            let deg = integer(v.prefix(degreeDigits)),
            let minutes = decimal(v.dropFirst(degreeDigits)), minutes < 60
        else { return nil }
        let value = Double(deg) + minutes / 60
        guard value <= max else { return nil }
        return hemisphere == negative ? -value : value
    }
}
