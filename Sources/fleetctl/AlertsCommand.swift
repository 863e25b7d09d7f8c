import ArgumentParser
import FleetGeo
import FleetJSON
import FleetModel
import FleetSQLite
import FleetStorage
import FleetTracking
import Foundation

/// `fleetctl alerts [--follow] [--json]`: committed alerts, oldest first.
struct AlertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract:
            "Print committed alerts, oldest first; --follow keeps printing new ones as they commit."
    )

    @OptionGroup var database: DatabaseOptions

    @Flag(name: .long, help: "Keep printing new alerts as they are committed, until interrupted.")
    var follow = false

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    @Option(name: .long, help: "Poll interval for --follow, milliseconds.")
    var pollMs = 50

    @Option(
        name: .long, help: "Only alerts after this alert id, or at or after this RFC 3339 time.")
    var since: String?

    @Option(name: .long, help: "Only this device's alerts.")
    var device: String?

    @Option(
        name: .long,
        help:
            "Only alerts of this type (geofence_enter, geofence_exit, overspeed_start, overspeed_end, trip_start, trip_end, device_silent, device_back, ignition_on, ignition_off, idle_start, idle_end, device_alarm)."
    )
    var type: String?

    func validate() throws {
        if let since, Int64(since) == nil, RFC3339.parse(Array(since.utf8)) == nil {
            throw ValidationError(
                "--since must be an alert id or an RFC 3339 time with a zone, found \"\(since)\"")
        }
        if let type, AlertType(rawValue: type) == nil {
            throw ValidationError(
                "--type \"\(type)\" is not an alert type (\(AlertType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
    }

    func run() throws {
        let reader = try database.reader(waitForIt: follow)
        var last: Int64 = 0
        var filter = AlertFilter(device: device, type: type)
        if let since {
            if let id = Int64(since) {
                last = id
            } else {
                filter.sinceMs = RFC3339.parse(Array(since.utf8))
            }
        }
        var printedHeader = false
        // Columns as wide as their widest cell so far (long device ids and
        // fence names keep the others in line); without --follow, every
        // alert is in one table.
        var widths = Self.widths
        var held: [AlertRecord] = []
        signal(SIGPIPE, SIG_DFL)
        while true {
            let batch = try reader.alerts(afterId: last, limit: 10_000, filter: filter)
            if let l = batch.last { last = l.id }
            if json {
                for a in batch { print(Self.jsonLine(a)) }
            } else if !follow {
                held += batch
            } else {
                for a in batch {
                    for (i, c) in Self.cells(a).enumerated() where i < widths.count - 1 {
                        widths[i] = max(widths[i], c.count + 1)
                    }
                }
                if !printedHeader, !batch.isEmpty {
                    print(Output.row(Self.header, widths))
                    printedHeader = true
                }
                for a in batch { print(Output.row(Self.cells(a), widths)) }
            }
            if !batch.isEmpty { fflush(nil) }
            if batch.count == 10_000 { continue }
            guard follow else { break }
            Thread.sleep(forTimeInterval: Double(pollMs) / 1000)
        }
        if !json {
            for line in Output.table(Self.header, held.map(Self.cells), minimum: Self.widths) {
                print(line)
            }
        }
    }

    static let header = ["ID", "TIME (UTC)", "DEVICE", "TYPE", "FENCE", "LAT", "LON", "DETAILS"]

    static let widths = [6, 24, 20, 16, 20, 11, 12, 0]

    static func cells(_ a: AlertRecord) -> [String] {
        [
            String(a.id), RFC3339.format(millis: a.time), a.device, a.type, a.fence ?? "-",
            a.lat.map { Output.fixed($0, 6) } ?? "-", a.lon.map { Output.fixed($0, 6) } ?? "-",
            details(a.details),
        ]
    }

    /// The details object as `key=value` pairs (text unquoted), "" when none.
    static func details(_ json: String?) -> String {
        guard let json, case .object(let members)? = try? JSONReader.parseDocument(Array(json.utf8))
        else { return "" }
        return members.map { m in
            switch m.value {
            case .string(let s): "\(m.key)=\(s)"
            default: "\(m.key)=\(m.value.jsonText)"
            }
        }.joined(separator: " ")
    }

    static func jsonLine(_ a: AlertRecord) -> String { a.jsonLine }
}
