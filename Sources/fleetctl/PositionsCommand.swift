import ArgumentParser
import FleetProtocols
import FleetStore

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
        for p in rows {
            if json {
                print(Self.jsonLine(p))
            } else {
                print(
                    Output.row(
                        [
                            RFC3339.format(millis: p.time), Output.fixed(p.lat, 7),
                            Output.fixed(p.lon, 7),
                            p.speedKmh.map { Output.fixed($0, 1) } ?? "-",
                            p.course.map { Output.fixed($0, 0) } ?? "-",
                            p.altM.map { Output.fixed($0, 0) } ?? "-", p.valid ? "yes" : "no",
                            Self.flag(p.disposition),
                        ], widths))
            }
        }
    }

    static func flag(_ disposition: Int) -> String {
        switch disposition {
        case 2: "late"
        case 3: "no-fix"
        default: "-"
        }
    }

    /// Field names are a contract: add freely, never rename.
    static func jsonLine(_ p: PositionRecord) -> String {
        Output.object([
            ("device", Output.quote(p.device)),
            ("time", Output.quote(RFC3339.format(millis: p.time))),
            ("lat", Output.number(p.lat)), ("lon", Output.number(p.lon)),
            ("speed_kmh", p.speedKmh.map(Output.number) ?? "null"),
            ("course", p.course.map(Output.number) ?? "null"),
            ("alt_m", p.altM.map(Output.number) ?? "null"),
            ("accuracy_m", p.accuracyM.map(Output.number) ?? "null"),
            ("sats", p.sats.map(String.init) ?? "null"),
            ("ignition", p.ignition.map { $0 ? "true" : "false" } ?? "null"),
            ("valid", p.valid ? "true" : "false"),
            ("flag", Output.quote(flag(p.disposition))),
            ("priority", p.priority.map(String.init) ?? "null"),
            ("movement", p.movement.map { $0 ? "true" : "false" } ?? "null"),
            ("gsm_signal", p.gsmSignal.map(String.init) ?? "null"),
            ("ext_voltage_mv", p.externalVoltageMv.map(String.init) ?? "null"),
            ("odometer_m", p.odometerM.map(String.init) ?? "null"),
            ("gnss_status", p.gnssStatus.map(String.init) ?? "null"),
            ("fix_quality", p.fixQuality.map(String.init) ?? "null"),
            ("hdop", p.hdop.map(Output.number) ?? "null"),
            ("io", p.ioRaw.map { TeltonikaIO.json($0, codec: UInt8(truncatingIfNeeded: p.ioCodec ?? 0)) } ?? "null"),
        ])
    }
}
