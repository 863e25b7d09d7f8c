import FleetJSON
import FleetModel

/// Decodes fleetd's JSON fix datagrams (see `docs/protocols.md`, "JSON fix format").
///
/// A datagram holds one JSON object per line (JSON Lines, `\n` or `\r\n`
/// separated; blank lines ignored). Each line is decoded on its own: a bad
/// line is rejected with a reason and never costs the good lines beside it.
/// Unknown members are skipped (their syntax still checked); a known member
/// given twice is an error. Pure: bytes in, values out.
public enum JSONFixDecoder {
    /// A fix decoded from one line, with the sender's sequence number.
    public struct Item: Sendable, Equatable {
        public var fix: Fix
        public var seq: Int64?
        /// 0-based line number in the datagram.
        public var line: Int
    }

    /// Everything one datagram yielded.
    public struct Output: Sendable, Equatable {
        public var items: [Item] = []
        public var rejections: [Rejection] = []
        public init() {}
    }

    /// Longest device id accepted.
    public static let maxDeviceLength = 64

    /// Decodes a whole datagram.
    public static func decode(_ datagram: UnsafeBufferPointer<UInt8>) -> Output {
        var out = Output()
        decode(datagram, into: &out)
        return out
    }

    /// Decodes a whole datagram, appending to `out`.
    public static func decode(_ datagram: UnsafeBufferPointer<UInt8>, into out: inout Output) {
        var lineStart = 0
        var line = 0
        var scratch: [UInt8] = []
        while lineStart <= datagram.count {
            var lineEnd = lineStart
            while lineEnd < datagram.count, datagram[lineEnd] != 0x0A { lineEnd += 1 }
            var end = lineEnd
            if end > lineStart, datagram[end - 1] == 0x0D { end -= 1 }
            let slice = UnsafeBufferPointer(rebasing: datagram[lineStart..<end])
            if !isBlank(slice) {
                decodeLine(slice, line: line, scratch: &scratch, into: &out)
            }
            line += 1
            lineStart = lineEnd + 1
        }
    }

    /// Decodes a datagram held in an array (tests, tools).
    public static func decode(_ bytes: [UInt8]) -> Output {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    static func isBlank(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        s.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    private enum Key: Int {
        case device, time, lat, lon, speed, course, alt, accuracy, sats, ignition, seq, key

        /// The member's name as written (a static string: no allocation).
        var name: String {
            switch self {
            case .device: "device"
            case .time: "time"
            case .lat: "lat"
            case .lon: "lon"
            case .speed: "speed"
            case .course: "course"
            case .alt: "alt"
            case .accuracy: "accuracy"
            case .sats: "sats"
            case .ignition: "ignition"
            case .seq: "seq"
            case .key: "key"
            }
        }
    }

    /// The member a raw (escape-free) name stands for, matched byte by byte.
    private static func key(of raw: UnsafeBufferPointer<UInt8>) -> Key? {
        func eq(_ word: StaticString) -> Bool {
            guard raw.count == word.utf8CodeUnitCount else { return false }
            let p = word.utf8Start
            for i in 0..<raw.count where raw[i] != p[i] { return false }
            return true
        }
        switch raw.count {
        case 3:
            return eq("lat")
                ? .lat
                : eq("lon") ? .lon : eq("alt") ? .alt : eq("seq") ? .seq : eq("key") ? .key : nil
        case 4: return eq("time") ? .time : eq("sats") ? .sats : nil
        case 5: return eq("speed") ? .speed : nil
        case 6: return eq("device") ? .device : eq("course") ? .course : nil
        case 8: return eq("accuracy") ? .accuracy : eq("ignition") ? .ignition : nil
        default: return nil
        }
    }

    private static func key(of name: String) -> Key? {
        switch name {
        case "device": .device
        case "time": .time
        case "lat": .lat
        case "lon": .lon
        case "speed": .speed
        case "course": .course
        case "alt": .alt
        case "accuracy": .accuracy
        case "sats": .sats
        case "ignition": .ignition
        case "seq": .seq
        case "key": .key
        default: nil
        }
    }

    /// Raw member values of one object before validation.
    private struct Fields {
        var seen: UInt32 = 0
        var device: String?
        var timeMillis: Int64?
        var timeText: String?
        var lat: Double?
        var lon: Double?
        var speed: Double?
        var course: Double?
        var alt: Double?
        var accuracy: Double?
        var sats: Int64?
        var ignition: Bool?
        var seq: Int64?
        /// The device's key (`devices.policy_file`), if the sender gave one.
        var key: String?
        /// The first type error met (field name, what was wrong).
        var typeError: (RejectReason, String)?
    }

    private static func decodeLine(
        _ bytes: UnsafeBufferPointer<UInt8>, line: Int, scratch: inout [UInt8],
        into out: inout Output
    ) {
        var f = Fields()
        var reader = JSONReader(bytes)
        do throws(JSONSyntaxError) {
            try reader.expect(0x7B, "'{' (each line must be one JSON object)")
            if !reader.consume(0x7D) {
                repeat {
                    let k: Key?
                    let name: String
                    if let raw = try reader.readPlainKey() {
                        k = key(of: raw)
                        name = k?.name ?? ""
                    } else {
                        name = try reader.readString(into: &scratch)
                        k = key(of: name)
                    }
                    try reader.expect(0x3A, "':'")
                    if let k {
                        if f.seen & (1 << k.rawValue) != 0, f.typeError == nil {
                            f.typeError = (.badField, "\"\(name)\" given twice")
                        }
                        f.seen |= 1 << k.rawValue
                        try readMember(
                            k, name: name, reader: &reader, scratch: &scratch, fields: &f)
                    } else {
                        try reader.skipValue(depth: 1)
                    }
                } while reader.consume(0x2C)
                try reader.expect(0x7D, "',' or '}'")
            }
            guard reader.atEnd() else { throw reader.error("unexpected text after the object") }
        } catch {
            // The item already names the datagram's line: say only the column.
            out.rejections.append(
                Rejection(
                    item: line, seq: f.seq, reason: .jsonSyntax,
                    detail: "column \(error.column): \(error.message)"))
            return
        }
        switch validate(f) {
        case .success(let fix): out.items.append(Item(fix: fix, seq: f.seq, line: line))
        case .failure(let r):
            out.rejections.append(
                Rejection(item: line, seq: f.seq, reason: r.reason, detail: r.detail))
        }
    }

    private static func readMember(
        _ k: Key, name: String, reader: inout JSONReader, scratch: inout [UInt8],
        fields f: inout Fields
    ) throws(JSONSyntaxError) {
        let next = reader.peek()
        if next == UInt8(ascii: "n"), reader.readNull() {
            switch k {
            case .device, .time, .lat, .lon:
                if f.typeError == nil { f.typeError = (.missingField, "\"\(name)\" is null") }
            default: break
            }
            return
        }
        func wrongType(_ expected: String) throws(JSONSyntaxError) {
            if f.typeError == nil { f.typeError = (.badField, "\"\(name)\" must be \(expected)") }
            try reader.skipValue(depth: 1)
        }
        let isNumber = next.map { $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) } ?? false
        switch k {
        case .device, .key:
            if next == 0x22 {
                let text = try reader.readString(into: &scratch)
                if k == .device { f.device = text } else { f.key = text }
            } else {
                try wrongType("a string")
            }
        case .time:
            if next == 0x22 {
                f.timeText = try reader.readString(into: &scratch)
            } else if isNumber {
                let save = reader.offset
                do {
                    f.timeMillis = try reader.readInt64()
                } catch {
                    reader.offset = save
                    try reader.skipValue(depth: 1)
                    if f.typeError == nil {
                        f.typeError = (
                            .badTime, "\"time\" must be integer milliseconds or an RFC 3339 string"
                        )
                    }
                }
            } else {
                try wrongType("an RFC 3339 string or integer milliseconds")
            }
        case .lat, .lon, .speed, .course, .alt, .accuracy:
            guard isNumber else { return try wrongType("a number") }
            let v = try reader.readNumber()
            switch k {
            case .lat: f.lat = v
            case .lon: f.lon = v
            case .speed: f.speed = v
            case .course: f.course = v
            case .alt: f.alt = v
            default: f.accuracy = v
            }
        case .sats, .seq:
            guard isNumber else { return try wrongType("an integer") }
            let save = reader.offset
            do {
                let v = try reader.readInt64()
                if k == .sats { f.sats = v } else { f.seq = v }
            } catch {
                reader.offset = save
                try reader.skipValue(depth: 1)
                if f.typeError == nil {
                    f.typeError = (.badField, "\"\(name)\" must be an integer")
                }
            }
        case .ignition:
            if next == UInt8(ascii: "t") || next == UInt8(ascii: "f") {
                f.ignition = try reader.readBool()
            } else {
                try wrongType("true or false")
            }
        }
    }

    private struct Invalid: Error {
        let reason: RejectReason
        let detail: String
    }

    private static func validate(_ f: Fields) -> Result<Fix, Invalid> {
        if let (reason, detail) = f.typeError {
            return .failure(Invalid(reason: reason, detail: detail))
        }
        guard let device = f.device else {
            return .failure(Invalid(reason: .missingField, detail: "\"device\" is missing"))
        }
        guard isValidDevice(device) else {
            return .failure(
                Invalid(
                    reason: .badDevice,
                    detail: "\"device\" must be 1–\(maxDeviceLength) characters of [A-Za-z0-9._:-]")
            )
        }
        let time: Int64
        if let ms = f.timeMillis {
            time = ms
        } else if let text = f.timeText {
            guard let ms = RFC3339.parse(Array(text.utf8)) else {
                return .failure(
                    Invalid(
                        reason: .badTime,
                        detail: "\"time\" is not RFC 3339 with a zone: \(text.prefix(40))"))
            }
            time = ms
        } else {
            return .failure(Invalid(reason: .missingField, detail: "\"time\" is missing"))
        }
        guard let lat = f.lat else {
            return .failure(Invalid(reason: .missingField, detail: "\"lat\" is missing"))
        }
        guard let lon = f.lon else {
            return .failure(Invalid(reason: .missingField, detail: "\"lon\" is missing"))
        }
        guard abs(lat) <= 90 else {
            return .failure(
                Invalid(reason: .latOutOfRange, detail: "\"lat\" \(lat) is outside −90…90"))
        }
        guard abs(lon) <= 180 else {
            return .failure(
                Invalid(reason: .lonOutOfRange, detail: "\"lon\" \(lon) is outside −180…180"))
        }
        if let s = f.speed, s < 0 {
            return .failure(Invalid(reason: .badField, detail: "\"speed\" \(s) is negative"))
        }
        if let c = f.course, !(0...360).contains(c) {
            return .failure(Invalid(reason: .badField, detail: "\"course\" \(c) is outside 0…360"))
        }
        if let a = f.accuracy, a < 0 {
            return .failure(Invalid(reason: .badField, detail: "\"accuracy\" \(a) is negative"))
        }
        if let s = f.sats, !(0...255).contains(s) {
            return .failure(Invalid(reason: .badField, detail: "\"sats\" \(s) is outside 0…255"))
        }
        var fix = Fix(
            device: device, time: time, lat: lat, lon: lon, speedKmh: f.speed, course: f.course,
            altM: f.alt, accuracyM: f.accuracy, sats: f.sats.map { Int($0) },
            ignition: f.ignition)
        if let key = f.key {
            var extra = FixExtra()
            extra.deviceKey = key
            fix.extra = extra
        }
        return .success(fix)
    }

    /// True for 1–64 characters of `[A-Za-z0-9._:-]`.
    public static func isValidDevice(_ s: String) -> Bool {
        let u = s.utf8
        guard !u.isEmpty, u.count <= maxDeviceLength else { return false }
        return u.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x2E
                || b == 0x5F || b == 0x3A || b == 0x2D
        }
    }
}
