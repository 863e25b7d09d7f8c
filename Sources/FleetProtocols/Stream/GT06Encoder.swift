import FleetModel

/// Builds GT06 frames as a device sends them (login, heartbeat, location):
/// for the simulator and the tests.
public enum GT06Encoder {
    /// A login (`0x01`): the IMEI in BCD with a leading zero.
    public static func login(imei: String, serial: UInt16) -> [UInt8] {
        let digits = Array(String(repeating: "0", count: max(0, 16 - imei.count)) + imei)
        var bcd: [UInt8] = []
        for i in stride(from: 0, to: 16, by: 2) {
            bcd.append(
                UInt8(digits[i].wholeNumberValue ?? 0) << 4
                    | UInt8(digits[i + 1].wholeNumberValue ?? 0))
        }
        return frame(proto: 0x01, content: bcd, serial: serial)
    }

    /// A heartbeat (`0x13`) with terminal-info bits (1 ACC, 2 charging, 6 GPS).
    public static func heartbeat(info: UInt8, serial: UInt16) -> [UInt8] {
        frame(proto: 0x13, content: [info, 0x04, 0x04, 0x00, 0x02], serial: serial)
    }

    /// A `0x22` location (GPS block, an LBS block, the ACC byte) at UTC
    /// `timeMs`, or a `0x12` one (no ACC byte) when `acc` is nil.
    public static func location(
        timeMs: Int64, lat: Double, lon: Double, speedKmh: Int, course: Int, sats: Int = 9,
        valid: Bool = true, acc: Bool? = nil, serial: UInt16
    ) -> [UInt8] {
        var c = gps(
            timeMs: timeMs, lat: lat, lon: lon, speedKmh: speedKmh, course: course, sats: sats,
            valid: valid)
        c += [0x00, 0xE8, 0x01, 0x1D, 0xBF, 0x00, 0x33, 0x32]  // MCC MNC LAC CellID
        guard let acc else { return frame(proto: 0x12, content: c, serial: serial) }
        c += [acc ? 1 : 0, 0x00, 0x00]
        return frame(proto: 0x22, content: c, serial: serial)
    }

    /// A `0x16` alarm packet: the GPS block, an LBS block with its length
    /// byte, the terminal-info byte `info` (bit 1 ACC), voltage, GSM
    /// signal, the alarm byte `alarm` (`01` SOS, `02` power cut, …) and
    /// the language byte.
    public static func alarm(
        timeMs: Int64, lat: Double, lon: Double, speedKmh: Int, course: Int, info: UInt8,
        alarm: UInt8, serial: UInt16
    ) -> [UInt8] {
        var c = gps(
            timeMs: timeMs, lat: lat, lon: lon, speedKmh: speedKmh, course: course, sats: 9,
            valid: true)
        c += [0x09, 0x00, 0xE8, 0x01, 0x1D, 0xBF, 0x00, 0x33, 0x32]
        c += [info, 0x04, 0x04, alarm, 0x02]
        return frame(proto: 0x16, content: c, serial: serial)
    }

    /// The 18-byte GPS block: UTC date and time, satellites, coordinates
    /// in 1/30 000 minutes, speed, and the course/status word.
    static func gps(
        timeMs: Int64, lat: Double, lon: Double, speedKmh: Int, course: Int, sats: Int,
        valid: Bool
    ) -> [UInt8] {
        let (y, mo, d, h, mi, s) = civil(timeMs)
        var c: [UInt8] = [UInt8(y - 2000), UInt8(mo), UInt8(d), UInt8(h), UInt8(mi), UInt8(s)]
        c.append(0xC0 | UInt8(min(max(sats, 0), 15)))
        c += be32(UInt32((lat.magnitude * 60 * 30_000).rounded()))
        c += be32(UInt32((lon.magnitude * 60 * 30_000).rounded()))
        c.append(UInt8(min(max(speedKmh, 0), 255)))
        var word = UInt16(min(max(course, 0), 360))
        if lat >= 0 { word |= 0x0400 }
        if lon < 0 { word |= 0x0800 }
        if valid { word |= 0x1000 }
        c += [UInt8(word >> 8), UInt8(word & 0xFF)]
        return c
    }

    /// A frame of `content` (`78 78`, or `79 79` past 250 bytes), CRC-ITU, `0D 0A`.
    public static func frame(proto: UInt8, content: [UInt8], serial: UInt16) -> [UInt8] {
        let length = 1 + content.count + 2 + 2
        let long = length > 250
        var body: [UInt8] = long ? [UInt8(length >> 8), UInt8(length & 0xFF)] : [UInt8(length)]
        body += [proto] + content + [UInt8(serial >> 8), UInt8(serial & 0xFF)]
        let crc = CRC16.x25(body)
        return (long ? [0x79, 0x79] : [0x78, 0x78]) + body + [
            UInt8(crc >> 8), UInt8(crc & 0xFF), 0x0D, 0x0A,
        ]
    }

    static func civil(_ ms: Int64) -> (Int, Int, Int, Int, Int, Int) {
        let s = Int(ms.quotientAndRemainder(dividingBy: 1000).quotient)
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let rest = s - days * 86_400
        let (y, mo, d) = RFC3339.civilFromDays(days)
        return (y, mo, d, rest / 3600, rest / 60 % 60, rest % 60)
    }
}
