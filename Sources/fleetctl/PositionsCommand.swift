import ArgumentParser
import FleetProtocols
import FleetSQLite
import FleetStorage

/// `fleetctl positions --device ID [--json]`: a device's stored fixes in time order.
struct PositionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "positions", abstract: "Print a device's stored fixes in time order.")

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: "The device id (JSON \"device\", IMEI, NMEA id).")
    var device: String

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    @Option(name: .long, help: "At most this many positions.")
    var limit = 1_000_000

    func run() throws {
        let reader = try Output.open(database.db, waitForIt: false)
        let rows = try reader.positions(device: device, limit: limit)
        let widths = [24, 12, 13, 9, 7, 8, 6, 9]
        if !json {
            print(
                Output.row(
                    ["TIME (UTC)", "LAT", "LON", "KM/H", "COURSE", "ALT M", "VALID", "FLAG"], widths
                ))
        }
        for row in rows {
            let p = row.fix
            if json {
                print(Self.jsonLine(row))
            } else {
                print(
                    Output.row(
                        [
                            RFC3339.format(millis: p.time), Output.fixed(p.lat, 7),
                            Output.fixed(p.lon, 7),
                            p.speedKmh.map { Output.fixed($0, 1) } ?? "-",
                            p.course.map { Output.fixed($0, 0) } ?? "-",
                            p.altM.map { Output.fixed($0, 0) } ?? "-", p.valid ? "yes" : "no",
                            Self.flag(row.disposition),
                        ], widths))
            }
        }
    }

    static func flag(_ disposition: Int) -> String {
        switch disposition {
        case 2: "late"
        case 3: "no-fix"
        case 4: "jump"
        default: "-"
        }
    }

    /// Field names are a contract: add freely, never rename.
    static func jsonLine(_ row: PositionRecord) -> String {
        let p = row.fix
        let x = p.extra
        func int(_ v: Int?) -> String { v.map(String.init) ?? "null" }
        func bool(_ v: Bool?) -> String { v.map { $0 ? "true" : "false" } ?? "null" }
        func num(_ v: Double?) -> String { v.map(Output.number) ?? "null" }
        return Output.object([
            ("device", Output.quote(p.device)),
            ("time", Output.quote(RFC3339.format(millis: p.time))),
            ("lat", Output.number(p.lat)), ("lon", Output.number(p.lon)),
            ("speed_kmh", num(p.speedKmh)),
            ("course", num(p.course)), ("alt_m", num(p.altM)), ("accuracy_m", num(p.accuracyM)),
            ("sats", int(p.sats)),
            ("ignition", bool(p.ignition)), ("valid", bool(p.valid)),
            ("flag", Output.quote(flag(row.disposition))),
            ("priority", int(x?.priority)), ("movement", bool(x?.movement)),
            ("gsm_signal", int(x?.gsmSignal)),
            ("ext_voltage_mv", int(x?.externalVoltageMv)), ("odometer_m", int(x?.odometerM)),
            ("gnss_status", int(x?.gnssStatus)), ("fix_quality", int(x?.fixQuality)),
            ("hdop", num(x?.hdop)),
            ("io", x?.ioRaw.map { TeltonikaIO.json($0, codec: x?.ioCodec ?? 0) } ?? "null"),
        ])
    }
}
