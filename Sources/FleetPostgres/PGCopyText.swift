import FleetStorage

/// Positions in `COPY`'s text format
/// (https://www.postgresql.org/docs/15/sql-copy.html#id-1.9.3.55.9.2): one
/// line a row, columns in `columns`' order separated by tabs, `\N` for
/// null, backslash, tab, newline and carriage return escaped, `bytea` as
/// `\\x` and hex.
enum PGCopyText {
    /// The positions table's columns, in the order `append` writes them.
    static let columns = [
        "device_id", "time_ms", "lat", "lon", "speed_kmh", "course", "alt_m", "accuracy_m", "sats",
        "ignition", "valid", "disposition", "received_ms", "priority", "movement", "gsm_signal",
        "ext_voltage_mv", "odometer_m", "gnss_status", "fix_quality", "hdop", "io", "io_codec",
        "battery", "charging", "attributes",
    ]

    /// Appends `row` (of the device whose row id is `device`) as one line.
    static func append(_ row: PositionRow, device: Int64, to out: inout String) {
        let f = row.fix
        let x = f.extra
        out += String(device)
        field(f.time, &out)
        number(f.lat, &out)
        number(f.lon, &out)
        number(f.speedKmh, &out)
        number(f.course, &out)
        number(f.altM, &out)
        number(f.accuracyM, &out)
        field(f.sats.map(Int64.init), &out)
        flag(f.ignition, &out)
        flag(f.valid, &out)
        field(Int64(row.disposition.rawValue), &out)
        field(row.receivedMs, &out)
        field(x?.priority.map(Int64.init), &out)
        flag(x?.movement, &out)
        field(x?.gsmSignal.map(Int64.init), &out)
        field(x?.externalVoltageMv.map(Int64.init), &out)
        field(x?.odometerM.map(Int64.init), &out)
        field(x?.gnssStatus.map(Int64.init), &out)
        field(x?.fixQuality.map(Int64.init), &out)
        number(x?.hdop, &out)
        if let raw = x?.ioRaw {
            out += "\t\\\\x"
            for b in raw {
                out.unicodeScalars.append(hex[Int(b >> 4)])
                out.unicodeScalars.append(hex[Int(b & 15)])
            }
            field(Int64(x?.ioCodec ?? 0), &out)
        } else {
            out += "\t\\N\t\\N"
        }
        number(x?.batteryPercent, &out)
        flag(x?.charging, &out)
        text(x?.attributes, &out)
        out += "\n"
    }

    private static let hex = Array("0123456789abcdef".unicodeScalars)

    private static func field(_ v: Int64?, _ out: inout String) {
        out += "\t"
        if let v { out += String(v) } else { out += "\\N" }
    }

    private static func number(_ v: Double?, _ out: inout String) {
        out += "\t"
        guard let v else {
            out += "\\N"
            return
        }
        if v.isNaN {
            out += "NaN"
        } else if v.isInfinite {
            out += v < 0 ? "-Infinity" : "Infinity"
        } else {
            out += "\(v)"
        }
    }

    private static func flag(_ v: Bool?, _ out: inout String) {
        out += "\t"
        if let v { out += v ? "t" : "f" } else { out += "\\N" }
    }

    /// A text value with COPY's escapes.
    static func text(_ v: String?, _ out: inout String) {
        out += "\t"
        guard let v else {
            out += "\\N"
            return
        }
        for ch in v.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(ch)
            }
        }
    }
}
