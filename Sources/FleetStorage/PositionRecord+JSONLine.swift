import FleetJSON
import FleetProtocols

extension PositionRecord {
    /// The position as one JSON object (no newline), written by hand for the
    /// API's pages: the same members and values as its `Codable` form
    /// (`RecordContractTests` checks that), at a fraction of its cost. `io`
    /// and `attributes` are JSON this program wrote, inserted as they are.
    public var jsonLine: String {
        let p = fix
        let x = p.extra
        func num(_ v: Double?) -> String { v.map { JSONValue.number($0).jsonText } ?? "null" }
        func int(_ v: (some BinaryInteger)?) -> String { v.map { "\($0)" } ?? "null" }
        func bool(_ v: Bool?) -> String { v.map { $0 ? "true" : "false" } ?? "null" }
        var s = "{\"device\":\(JSONValue.quote(p.device)),"
        s += "\"time\":\(JSONValue.quote(RecordCoding.time(p.time))),"
        s += "\"lat\":\(num(p.lat)),\"lon\":\(num(p.lon)),\"speed_kmh\":\(num(p.speedKmh)),"
        s += "\"course\":\(num(p.course)),\"alt_m\":\(num(p.altM)),"
        s += "\"accuracy_m\":\(num(p.accuracyM)),\"sats\":\(int(p.sats)),"
        s += "\"ignition\":\(bool(p.ignition)),\"valid\":\(bool(p.valid)),"
        s += "\"flag\":\(JSONValue.quote(Self.flag(disposition))),"
        s += "\"priority\":\(int(x?.priority)),\"movement\":\(bool(x?.movement)),"
        s += "\"gsm_signal\":\(int(x?.gsmSignal)),\"ext_voltage_mv\":\(int(x?.externalVoltageMv)),"
        s += "\"odometer_m\":\(int(x?.odometerM)),\"gnss_status\":\(int(x?.gnssStatus)),"
        s += "\"fix_quality\":\(int(x?.fixQuality)),\"hdop\":\(num(x?.hdop)),"
        let io = x?.ioRaw.map { TeltonikaIO.json($0, codec: x?.ioCodec ?? 0) }
        s += "\"io\":\(io ?? "null"),"
        s += "\"battery\":\(num(x?.batteryPercent)),\"charging\":\(bool(x?.charging)),"
        s += "\"attributes\":\(x?.attributes ?? "null")}"
        return s
    }
}
