import FleetModel

/// GT06 / Concox (Jimi) over TCP, one connection (the Concox GT06N/GT06F
/// protocol document; `docs/protocols.md`, "GT06"):
///
/// - Frames by their length field, never by searching for `0D 0A`: `78 78`
///   + 1-byte length or `79 79` + 2-byte length, protocol number, content,
///   serial (2), CRC-ITU (CRC-16/X-25 over length … serial), `0D 0A`.
/// - Login (`0x01`, IMEI in BCD; GT06N logins add a type id and a time-zone
///   word, applied to the connection's times) is answered when the IMEI is
///   registered, else the connection is closed (`unknown_device`); any
///   other packet before it closes the connection (`no_identity`).
/// - Location (`0x12`, `0x22`) and alarm (`0x16`, `0x26`) packets become
///   fixes, answered once committed; heartbeats (`0x13`) are answered at
///   once and their status bits (ignition, charging) kept for the fixes
///   that follow; `0x15` is the device's answer to a command; any other
///   packet is answered, as the devices of the family expect.
/// - A bad CRC refuses the packet unanswered; a wrong start, a length out
///   of range or a missing stop closes the connection (`bad_frame`).
public final class GT06Session: StreamSession {
    public let trackerProtocol = TrackerProtocol.gt06
    public private(set) var device: String?
    /// The largest frame taken, bytes.
    public let maxFrame: Int
    /// Added to the device's times to make them UTC, ms: the login's
    /// time-zone word, else `defaultOffsetMs` (0: the device sends UTC).
    public private(set) var offsetMs: Int64
    /// The last heartbeat's status bits, applied to fixes that lack them.
    private var ignition: Bool?
    private var charging: Bool?
    /// The last command's serial (also its server flag).
    private var commandSerial: UInt16 = 0

    /// `utcOffsetMinutes`: the zone of devices that send local time and do
    /// not say so in their login (`gt06.utc_offset_minutes`).
    public init(maxFrame: Int = 1024, utcOffsetMinutes: Int = 0) {
        self.maxFrame = maxFrame
        self.offsetMs = -Int64(utcOffsetMinutes) * 60_000
    }

    public func next(_ b: UnsafeBufferPointer<UInt8>, nowMs: Int64, known: (String) -> Bool)
        -> StreamStep
    {
        guard b.count >= 2 else { return .needMore }
        let long: Bool
        switch (b[0], b[1]) {
        case (0x78, 0x78): long = false
        case (0x79, 0x79): long = true
        default:
            return close(
                .badFrame,
                "start bytes \(NMEAParser.hex2(b[0]))\(NMEAParser.hex2(b[1])) (78 78 or 79 79)")
        }
        let header = long ? 4 : 3
        guard b.count >= header else { return .needMore }
        let length = long ? Int(b[2]) << 8 | Int(b[3]) : Int(b[2])
        let total = header + length + 2
        guard length >= 5 else {
            return close(.badLength, "length \(length) (protocol, serial and CRC take 5)")
        }
        guard total <= maxFrame else {
            return close(.oversize, "frame of \(total) bytes (at most \(maxFrame))")
        }
        guard b.count >= total else { return .needMore }
        guard b[total - 2] == 0x0D, b[total - 1] == 0x0A else {
            return close(.badFrame, "no 0D 0A where the length field puts the frame's end")
        }
        let crcEnd = header + length - 2  // CRC covers length … serial
        let sent = UInt16(b[crcEnd]) << 8 | UInt16(b[crcEnd + 1])
        let computed = CRC16.x25(UnsafeBufferPointer(rebasing: b[2..<crcEnd]))
        guard sent == computed else {
            return .unit(
                consumed: total,
                .refused(
                    Rejection(
                        .badCRC,
                        "CRC-ITU 0x\(CRC16.hex(UInt32(sent))) sent, 0x\(CRC16.hex(UInt32(computed))) computed"
                    ))
            )
        }
        let proto = b[header]
        let serial = UInt16(b[crcEnd - 2]) << 8 | UInt16(b[crcEnd - 1])
        let content = UnsafeBufferPointer(rebasing: b[(header + 1)..<(crcEnd - 2)])
        let answer = Self.reply(proto: proto, serial: serial, long: long)
        if proto == 0x01 { return login(content, answer: answer, consumed: total, known: known) }
        guard let imei = device else {
            return close(.noIdentity, "packet 0x\(NMEAParser.hex2(proto)) before the login")
        }
        switch proto {
        case 0x12, 0x22, 0x16, 0x26:
            switch position(content, proto: proto, imei: imei) {
            case .success(let fix):
                return .unit(
                    consumed: total, .fixes(WireDecoding(fixes: [fix], reply: WireReply(answer))))
            case .failure(let r):
                return .unit(consumed: total, .refused(r))
            }
        case 0x13:
            if let info = content.first { status(info) }
            return .unit(consumed: total, .answer(answer))
        case 0x15:
            // Length (1) = 4 + text, server flag (4), ASCII text, [language (2)].
            guard content.count >= 5 else {
                return .unit(
                    consumed: total,
                    .refused(Rejection(.truncated, "a 0x15 answer of \(content.count) bytes")))
            }
            let textLength = min(Int(content[0]) - 4, content.count - 5)
            let text = UnsafeBufferPointer(rebasing: content[5..<(5 + max(0, textLength))])
            return .unit(consumed: total, .commandAnswer(String(decoding: text, as: UTF8.self)))
        default:
            return .unit(consumed: total, .answer(answer))
        }
    }

    private func login(
        _ c: UnsafeBufferPointer<UInt8>, answer: [UInt8], consumed: Int, known: (String) -> Bool
    ) -> StreamStep {
        guard c.count >= 8 else { return close(.badIMEI, "a login of \(c.count) bytes") }
        var digits = ""
        for byte in c.prefix(8) {
            let hi = byte >> 4
            let lo = byte & 0x0F
            guard hi <= 9, lo <= 9 else { return close(.badIMEI, "the login's IMEI is not BCD") }
            digits += String(hi) + String(lo)
        }
        let imei = String(digits.drop { $0 == "0" })
        guard !imei.isEmpty else { return close(.badIMEI, "the login's IMEI is zero") }
        if let d = device, d != imei {
            return close(.wrongDevice, "a login as \(imei) on \(d)'s connection")
        }
        guard known(imei) else { return close(.unknownDevice, "IMEI \(imei) is not registered") }
        device = imei
        if c.count >= 12 {
            // Time-zone word: bits 15–4 the offset × 100 (hhmm), bit 3 west.
            let word = Int(c[10]) << 8 | Int(c[11])
            let hhmm = word >> 4
            let minutes = (hhmm / 100) * 60 + hhmm % 100
            if minutes <= 14 * 60 {
                offsetMs = Int64(word & 0x08 != 0 ? minutes : -minutes) * 60_000
            }
        }
        return .unit(consumed: consumed, .answer(answer))
    }

    /// Keeps a terminal-info byte's bits: 1 ACC (ignition), 2 charging.
    private func status(_ info: UInt8) {
        ignition = info & 0x02 != 0
        charging = info & 0x04 != 0
    }

    /// The GPS block (and, by packet, LBS, ACC and alarm bytes) as a fix.
    private func position(_ c: UnsafeBufferPointer<UInt8>, proto: UInt8, imei: String)
        -> Result<Fix, Rejection>
    {
        guard c.count >= 18 else {
            return .failure(
                Rejection(
                    .truncated,
                    "packet 0x\(NMEAParser.hex2(proto)) of \(c.count) bytes (GPS block takes 18)"))
        }
        let (y, mo, d, h, mi, s) = (
            Int(c[0]), Int(c[1]), Int(c[2]), Int(c[3]), Int(c[4]), Int(c[5])
        )
        guard (1...12).contains(mo), (1...RFC3339.daysIn(month: mo, year: 2000 + y)).contains(d),
            h < 24, mi < 60, s < 60
        else {
            return .failure(Rejection(.badTime, "date \(y)-\(mo)-\(d) \(h):\(mi):\(s)"))
        }
        let local = RFC3339.epochMs(
            year: 2000 + y, month: mo, day: d, hour: h, minute: mi, second: s)
        let sats = Int(c[6] & 0x0F)
        let latRaw = UInt32(c[7]) << 24 | UInt32(c[8]) << 16 | UInt32(c[9]) << 8 | UInt32(c[10])
        let lonRaw = UInt32(c[11]) << 24 | UInt32(c[12]) << 16 | UInt32(c[13]) << 8 | UInt32(c[14])
        let speed = Double(c[15])
        let word = UInt16(c[16]) << 8 | UInt16(c[17])
        var lat = Double(latRaw) / 30_000 / 60
        var lon = Double(lonRaw) / 30_000 / 60
        if word & 0x0400 == 0 { lat = -lat }  // bit 10: 1 north
        if word & 0x0800 != 0 { lon = -lon }  // bit 11: 1 west
        guard lat.magnitude <= 90, lon.magnitude <= 180 else {
            return .failure(
                Rejection(
                    lat.magnitude > 90 ? .latOutOfRange : .lonOutOfRange,
                    "latitude \(lat), longitude \(lon)"))
        }
        var extra = FixExtra()
        var ign: Bool? = word & 0x4000 != 0 ? word & 0x8000 != 0 : nil
        switch proto {
        case 0x22:
            if c.count >= 27 { ign = c[26] != 0 }  // GPS 18, LBS 8, ACC
        case 0x16, 0x26:
            // GPS 18, LBS length 1, LBS 8, terminal info, voltage, GSM, alarm, language.
            if c.count >= 28 {
                status(c[27])
                ign = ignition
            }
            if c.count >= 31, let kind = Self.alarm(c[30]) {
                extra.attributes = "{\"alarm\":\"\(kind)\"}"
                extra.alarm = kind
            }
        default: break
        }
        if charging != nil { extra.charging = charging }
        return .success(
            Fix(
                device: imei, time: local + offsetMs, lat: lat, lon: lon, speedKmh: speed,
                course: Double(word & 0x03FF), sats: sats, ignition: ign ?? ignition,
                valid: word & 0x1000 != 0, extra: extra))
    }

    /// The alarm byte's kind, for the codes the family shares.
    static func alarm(_ code: UInt8) -> String? {
        switch code {
        case 0x01: "sos"
        case 0x02: "power_cut"
        case 0x03: "vibration"
        case 0x04: "fence_enter"
        case 0x05: "fence_exit"
        case 0x06: "overspeed"
        case 0x19: "low_battery"
        default: nil
        }
    }

    /// The server's answer to packet `proto` numbered `serial`: the same
    /// protocol number and serial in an empty frame, CRC-ITU, `0D 0A`.
    public static func reply(proto: UInt8, serial: UInt16, long: Bool = false) -> [UInt8] {
        let body: [UInt8] =
            (long ? [0x00, 0x05] : [0x05]) + [proto, UInt8(serial >> 8), UInt8(serial & 0xFF)]
        let crc = CRC16.x25(body)
        return (long ? [0x79, 0x79] : [0x78, 0x78]) + body + [
            UInt8(crc >> 8), UInt8(crc & 0xFF), 0x0D, 0x0A,
        ]
    }

    public func command(_ text: String, nowMs: Int64) -> [UInt8]? {
        guard device != nil else { return nil }
        commandSerial &+= 1
        return Self.commandFrame(text, flag: UInt32(commandSerial), serial: commandSerial)
    }

    /// The `0x80` frame that sends `command` (the device's own command
    /// text, `Relay,1#`) with server flag `flag` and serial `serial`.
    public static func commandFrame(_ command: String, flag: UInt32 = 0, serial: UInt16 = 0)
        -> [UInt8]
    {
        let text = Array(command.utf8)
        var body: [UInt8] = [UInt8(truncatingIfNeeded: 1 + 1 + 4 + text.count + 2 + 2), 0x80]
        body += [UInt8(truncatingIfNeeded: 4 + text.count)] + be32(flag) + text
        body += [UInt8(serial >> 8), UInt8(serial & 0xFF)]
        let crc = CRC16.x25(body)
        return [0x78, 0x78] + body + [UInt8(crc >> 8), UInt8(crc & 0xFF), 0x0D, 0x0A]
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        "IMEI \(d.fixes[index].device)"
    }

}
