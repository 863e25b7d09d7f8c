import ArgumentParser
import FleetGeo
import FleetModel
import FleetReports
import FleetStorage
import Foundation

/// `fleetctl map --device ID --from T --to T [--fences FILE] -o trip.svg`:
/// where a vehicle went, as a picture (SVG, or a self-contained HTML page
/// when the output ends in `.html`).
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract:
            "Draw a vehicle's track in a period over the fences, with trips and alerts, as SVG or HTML."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: "The device.")
    var device: String

    @OptionGroup var period: PeriodOptions

    @Option(
        name: .long,
        help: "GeoJSON fences to draw (default: config/geofences.geojson when it exists).")
    var fences: String?

    @Option(name: .shortAndLong, help: "Output file: .svg or .html.")
    var output: String

    func validate() throws {
        _ = try period.millis()
        let ext = (output as NSString).pathExtension.lowercased()
        guard ext == "svg" || ext == "html" || ext == "htm" else {
            throw ValidationError("-o \(output): the file must end in .svg or .html")
        }
    }

    func run() throws {
        let (fromMs, toMs) = try period.millis()
        let reader = try database.reader(waitForIt: false)
        guard let record = try reader.device(device) else {
            throw Output.fail("fleetctl map: no device \(device) in \(database.db)")
        }
        let positions = try reader.positions(
            device: device, fromMs: fromMs, toMs: toMs, limit: 1_000_000
        ).filter { $0.disposition == 0 }
        guard !positions.isEmpty else {
            throw Output.fail(
                "fleetctl map: device \(device) has no accepted positions from \(period.from) to \(period.to)"
            )
        }
        let trips = try reader.trips(
            filter: TripFilter(device: device, fromMs: fromMs, toMs: toMs), limit: 100_000)
        let alerts = try reader.alerts(
            afterId: 0, limit: 100_000,
            filter: AlertFilter(device: device, sinceMs: fromMs, untilMs: toMs))
        var fenceList: [Fence] = []
        let fencesPath =
            fences
            ?? (FileManager.default.fileExists(atPath: "config/geofences.geojson")
                ? "config/geofences.geojson" : nil)
        if let fencesPath { fenceList = try loadFences(fencesPath) }
        let name = record.name
        let map = Self.map(
            title:
                "\(name.map { "\($0) (\(device))" } ?? device): \(TripsCommand.time(fromMs)) – \(TripsCommand.time(toMs))",
            positions: positions, trips: trips, alerts: alerts, fences: fenceList)
        let text = output.lowercased().hasSuffix(".svg") ? map.svg() : map.html()
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw Output.fail("fleetctl map: cannot write \(output): \(error.localizedDescription)")
        }
        print(
            "\(output): \(positions.count) positions, \(trips.count) trips, \(alerts.count) alerts, \(fenceList.count) fences loaded"
        )
    }

    /// The picture's content: the track (cut at gaps over 10 minutes), trip
    /// starts and ends, alerts labelled with their type (and fence).
    static func map(
        title: String, positions: [PositionRecord], trips: [TripRecord], alerts: [AlertRecord],
        fences: [Fence]
    ) -> TrackMap {
        var map = TrackMap(
            title: title, track: positions.map { Coordinate(lat: $0.fix.lat, lon: $0.fix.lon) },
            fences: fences, markers: [])
        for i in positions.indices.dropFirst()
        where positions[i].fix.time - positions[i - 1].fix.time > 600_000 {
            map.breaks.insert(i)
        }
        for (n, t) in trips.enumerated() {
            map.markers.append(
                .init(
                    lat: t.startLat, lon: t.startLon, kind: .tripStart,
                    label: "trip \(n + 1) start \(clock(t.startTime))"))
            map.markers.append(
                .init(
                    lat: t.endLat, lon: t.endLon, kind: .tripEnd,
                    label:
                        "trip \(n + 1) end \(clock(t.endTime)), \(Output.fixed(t.distanceM / 1000, 1)) km"
                ))
        }
        // Trip alerts are the trips' own markers already.
        for a in alerts where a.type != "trip_start" && a.type != "trip_end" {
            guard let lat = a.lat, let lon = a.lon else { continue }
            map.markers.append(
                .init(
                    lat: lat, lon: lon, kind: .alert,
                    label: a.type + (a.fence.map { " \($0)" } ?? "") + " \(clock(a.time))"))
        }
        return map
    }

    /// `HH:MM` UTC.
    static func clock(_ ms: Int64) -> String {
        let s = RFC3339.format(millis: ms)
        return String(s.dropFirst(11).prefix(5))
    }
}
