import FleetJSON
import FleetModel
import FleetProtocols

/// A position's JSON, the contract `fleetctl positions --json` and the API
/// share (add fields, never rename): the fix's fields (`device`, `time`
/// RFC 3339 UTC, `lat`, `lon`, `speed_kmh`, `course`, `alt_m`,
/// `accuracy_m`, `sats`, `ignition`, `valid`), its `flag` (`-`, `late`,
/// `no-fix`, `jump`), and the device extras (`priority`, `movement`,
/// `gsm_signal`, `ext_voltage_mv`, `odometer_m`, `gnss_status`,
/// `fix_quality`, `hdop`, and `io`, Teltonika's I/O elements by id; `io`
/// is not read back), and a phone's `battery` (percent), `charging` and
/// `attributes` (an object of the other keys it sent).
extension PositionRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case device, time, lat, lon, speedKmh = "speed_kmh", course, altM = "alt_m"
        case accuracyM = "accuracy_m", sats, ignition, valid, flag, priority, movement
        case gsmSignal = "gsm_signal", externalVoltageMv = "ext_voltage_mv"
        case odometerM = "odometer_m", gnssStatus = "gnss_status", fixQuality = "fix_quality"
        case hdop, io, battery, charging, attributes
    }

    /// The stored disposition as records name it.
    public static func flag(_ disposition: Int) -> String {
        switch disposition {
        case 2: "late"
        case 3: "no-fix"
        case 4: "jump"
        default: "-"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var x = FixExtra()
        x.priority = try c.decodeIfPresent(Int.self, forKey: .priority)
        x.movement = try c.decodeIfPresent(Bool.self, forKey: .movement)
        x.gsmSignal = try c.decodeIfPresent(Int.self, forKey: .gsmSignal)
        x.externalVoltageMv = try c.decodeIfPresent(Int.self, forKey: .externalVoltageMv)
        x.odometerM = try c.decodeIfPresent(Int.self, forKey: .odometerM)
        x.gnssStatus = try c.decodeIfPresent(Int.self, forKey: .gnssStatus)
        x.fixQuality = try c.decodeIfPresent(Int.self, forKey: .fixQuality)
        x.hdop = try c.decodeIfPresent(Double.self, forKey: .hdop)
        x.batteryPercent = try c.decodeIfPresent(Double.self, forKey: .battery)
        x.charging = try c.decodeIfPresent(Bool.self, forKey: .charging)
        x.attributes = try c.decodeIfPresent(JSONValue.self, forKey: .attributes).map(\.jsonText)
        let fix = Fix(
            device: try c.decode(String.self, forKey: .device),
            time: try RecordCoding.millis(c, .time),
            lat: try c.decode(Double.self, forKey: .lat),
            lon: try c.decode(Double.self, forKey: .lon),
            speedKmh: try c.decodeIfPresent(Double.self, forKey: .speedKmh),
            course: try c.decodeIfPresent(Double.self, forKey: .course),
            altM: try c.decodeIfPresent(Double.self, forKey: .altM),
            accuracyM: try c.decodeIfPresent(Double.self, forKey: .accuracyM),
            sats: try c.decodeIfPresent(Int.self, forKey: .sats),
            ignition: try c.decodeIfPresent(Bool.self, forKey: .ignition),
            valid: try c.decode(Bool.self, forKey: .valid),
            extra: x == FixExtra() ? nil : x)
        let flag = try c.decode(String.self, forKey: .flag)
        self.init(fix: fix, disposition: ["late": 2, "no-fix": 3, "jump": 4][flag] ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let p = fix
        let x = p.extra
        try c.encode(p.device, forKey: .device)
        try c.encode(RecordCoding.time(p.time), forKey: .time)
        try c.encode(p.lat, forKey: .lat)
        try c.encode(p.lon, forKey: .lon)
        try c.encode(p.speedKmh, forKey: .speedKmh)
        try c.encode(p.course, forKey: .course)
        try c.encode(p.altM, forKey: .altM)
        try c.encode(p.accuracyM, forKey: .accuracyM)
        try c.encode(p.sats, forKey: .sats)
        try c.encode(p.ignition, forKey: .ignition)
        try c.encode(p.valid, forKey: .valid)
        try c.encode(Self.flag(disposition), forKey: .flag)
        try c.encode(x?.priority, forKey: .priority)
        try c.encode(x?.movement, forKey: .movement)
        try c.encode(x?.gsmSignal, forKey: .gsmSignal)
        try c.encode(x?.externalVoltageMv, forKey: .externalVoltageMv)
        try c.encode(x?.odometerM, forKey: .odometerM)
        try c.encode(x?.gnssStatus, forKey: .gnssStatus)
        try c.encode(x?.fixQuality, forKey: .fixQuality)
        try c.encode(x?.hdop, forKey: .hdop)
        let io = x?.ioRaw.flatMap {
            try? JSONReader.parseDocument(Array(TeltonikaIO.json($0, codec: x?.ioCodec ?? 0).utf8))
        }
        try c.encode(io, forKey: .io)
        try c.encode(x?.batteryPercent, forKey: .battery)
        try c.encode(x?.charging, forKey: .charging)
        let attributes = x?.attributes.flatMap { try? JSONReader.parseDocument(Array($0.utf8)) }
        try c.encode(attributes, forKey: .attributes)
    }
}
