import FleetModel

/// H02 (Sinotrack, Coban and kin) text messages over TCP, one connection
/// (the H02 protocol document; `docs/protocols.md`, "H02"):
/// `*XX,<id>,<type>,…#`, where `XX` is a maker code (`HQ`).
///
/// - The first message names the connection's device (refused and closed,
///   `unknown_device`, when it is not registered); a later message naming
///   another device closes the connection (`wrong_device`).
/// - `V1` positions: `hhmmss,A|V,ddmm.mmmm,N|S,dddmm.mmmm,E|W,speed
///   (knots),course,ddmmyy,status` (UTC; the status word's bit 10 is the
///   ignition), answered once committed with `*XX,<id>,V4,V1,<UTC now
///   yyyyMMddHHmmss>#`; `V4` is the device's answer to a command; `HTBT`
///   heartbeats are echoed; other types are taken unanswered.
/// - Whitespace between messages is skipped; anything else outside `*…#`,
///   the binary (`$`) variant, or a message longer than `maxFrame`
///   closes the connection (`bad_frame`, `oversize`).
public final class H02Session: StreamSession {
    public let trackerProtocol = TrackerProtocol.h02
    public private(set) var device: String?
    /// The longest message taken, bytes.
    public let maxFrame: Int

    public init(maxFrame: Int = 1024) { self.maxFrame = maxFrame }

    public func next(_ b: UnsafeBufferPointer<UInt8>, nowMs: Int64, known: (String) -> Bool)
        -> StreamStep
    {
        var start = 0
        while start < b.count, b[start] == 0x0D || b[start] == 0x0A || b[start] == 0x20 {
            start += 1
        }
        guard start < b.count else {
            return start == 0 ? .needMore : .unit(consumed: start, .answer([]))
        }
        guard b[start] == UInt8(ascii: "*") else {
            return close(
                .badFrame,
                b[start] == UInt8(ascii: "$")
                    ? "the binary H02 variant ($) is not taken"
                    : "a message that does not start with *")
        }
        guard let end = b[start...].firstIndex(of: UInt8(ascii: "#")) else {
            return b.count - start > maxFrame
                ? close(.oversize, "no # within \(maxFrame) bytes") : .needMore
        }
        guard end - start + 1 <= maxFrame else {
            return close(.oversize, "a message of \(end - start + 1) bytes (at most \(maxFrame))")
        }
        let text = String(
            decoding: UnsafeBufferPointer(rebasing: b[(start + 1)..<end]), as: UTF8.self)
        let consumed = end + 1
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3, fields[0].count == 2, !fields[1].isEmpty, fields[1].count <= 20,
            fields[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            return .unit(
                consumed: consumed,
                .refused(Rejection(.badSentence, "not *XX,<id>,<type>,…#: \(text.prefix(40))")))
        }
        let (maker, id, type) = (fields[0], fields[1], fields[2])
        if let d = device, d != id {
            return close(.wrongDevice, "a message from \(id) on \(d)'s connection")
        }
        if device == nil {
            guard known(id) else { return close(.unknownDevice, "device \(id) is not registered") }
            device = id
        }
        switch type {
        case "V1":
            switch position(fields, id: id) {
            case .failure(let r): return .unit(consumed: consumed, .refused(r))
            case .success(let fix):
                let answer = "*\(maker),\(id),V4,V1,\(Self.stamp(nowMs))#"
                return .unit(
                    consumed: consumed,
                    .fixes(WireDecoding(fixes: [fix], reply: WireReply(Array(answer.utf8)))))
            }
        case "V4":
            return .unit(
                consumed: consumed, .commandAnswer(fields.dropFirst(3).joined(separator: ",")))
        case "HTBT":
            return .unit(consumed: consumed, .answer(Array("*\(maker),\(id),HTBT#".utf8)))
        default:
            return .unit(consumed: consumed, .answer([]))
        }
    }

    /// A `V1` message's fields as a fix.
    private func position(_ f: [String], id: String) -> Result<Fix, Rejection> {
        guard f.count >= 13 else {
            return .failure(Rejection(.missingField, "V1 with \(f.count) fields (13 at least)"))
        }
        let (time, date) = (Array(f[3].utf8), Array(f[11].utf8))
        guard time.count >= 6, date.count == 6, let hh = Int(f[3].prefix(2)),
            let mi = Int(f[3].dropFirst(2).prefix(2)), let ss = Int(f[3].dropFirst(4).prefix(2)),
            let dd = Int(f[11].prefix(2)), let mo = Int(f[11].dropFirst(2).prefix(2)),
            let yy = Int(f[11].suffix(2)), (1...12).contains(mo),
            (1...RFC3339.daysIn(month: mo, year: 2000 + yy)).contains(dd), hh < 24, mi < 60, ss < 60
        else {
            return .failure(Rejection(.badTime, "time \(f[3]), date \(f[11])"))
        }
        guard let lat0 = Self.degrees(f[5], width: 2), let lon0 = Self.degrees(f[7], width: 3),
            ["N", "S"].contains(f[6]), ["E", "W"].contains(f[8])
        else {
            return .failure(Rejection(.badNMEAField, "position \(f[5]),\(f[6]),\(f[7]),\(f[8])"))
        }
        let lat = f[6] == "S" ? -lat0 : lat0
        let lon = f[8] == "W" ? -lon0 : lon0
        guard lat.magnitude <= 90 else {
            return .failure(Rejection(.latOutOfRange, "latitude \(lat)"))
        }
        guard lon.magnitude <= 180 else {
            return .failure(Rejection(.lonOutOfRange, "longitude \(lon)"))
        }
        guard let knots = Double(f[9]), knots.isFinite, knots >= 0, let course = Double(f[10]),
            course.isFinite
        else {
            return .failure(Rejection(.badField, "speed \(f[9]), course \(f[10])"))
        }
        let status = UInt32(f[12], radix: 16)
        let ms = RFC3339.epochMs(
            year: 2000 + yy, month: mo, day: dd, hour: hh, minute: mi, second: ss)
        return .success(
            Fix(
                device: id, time: ms, lat: lat, lon: lon, speedKmh: knots * 1.852, course: course,
                ignition: status.map { $0 & 0x400 != 0 }, valid: f[4] == "A"))
    }

    /// Degrees of `DDMM.MMMM` (`width` degree digits; fewer when leading
    /// zeros are dropped) or of the `-DD-MM.MMMM` form some units send.
    static func degrees(_ s: String, width: Int) -> Double? {
        if s.hasPrefix("-") {
            let parts = s.dropFirst().split(separator: "-")
            guard parts.count == 2, let d = Double(parts[0]), let m = Double(parts[1]), m < 60
            else {
                return nil
            }
            return d + m / 60
        }
        guard let v = Double(s), v.isFinite, v >= 0 else { return nil }
        let d = (v / 100).rounded(.down)
        let m = v - d * 100
        guard m < 60 else { return nil }
        return d + m / 60
    }

    /// `yyyyMMddHHmmss` of `ms` (UTC).
    static func stamp(_ ms: Int64) -> String {
        let s = RFC3339.format(millis: ms)  // 2026-11-27T05:07:56.000Z
        return s.prefix(19).filter { $0.isNumber }
    }

    public func command(_ text: String, nowMs: Int64) -> [UInt8]? {
        device.map { Self.commandLine(text, id: $0, nowMs: nowMs) }
    }

    /// The command line that sends `command` (`S20,1,1` to cut the fuel)
    /// to device `id`, stamped with `nowMs`'s UTC time.
    public static func commandLine(_ command: String, id: String, nowMs: Int64) -> [UInt8] {
        let parts = command.split(separator: ",", maxSplits: 1).map(String.init)
        let hhmmss = String(stamp(nowMs).suffix(6))
        let rest = parts.count > 1 ? ",\(parts[1])" : ""
        return Array("*HQ,\(id),\(parts.first ?? ""),\(hhmmss)\(rest)#".utf8)
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        "device \(d.fixes[index].device)"
    }

}
