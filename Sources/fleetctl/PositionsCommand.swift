import ArgumentParser
import FleetModel
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
        let reader = try database.reader(waitForIt: false)
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
                print(RecordCoding.line(row))
            } else {
                print(
                    Output.row(
                        [
                            RFC3339.format(millis: p.time), Output.fixed(p.lat, 7),
                            Output.fixed(p.lon, 7),
                            p.speedKmh.map { Output.fixed($0, 1) } ?? "-",
                            p.course.map { Output.fixed($0, 0) } ?? "-",
                            p.altM.map { Output.fixed($0, 0) } ?? "-", p.valid ? "yes" : "no",
                            PositionRecord.flag(row.disposition),
                        ], widths))
            }
        }
    }
}
