import ArgumentParser
import FleetSQLite
import FleetSimCore
import FleetStorage
import Foundation

/// `fleetsim score`: fleetd's alerts and trips against a fleet's truth.
struct ScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract:
            "Score fleetd's fence alerts, trips, mileage and overspeed (read from its database) against the truth `fleetsim fleet --truth` wrote.",
        discussion: """
            An alert matches a true event of the same device, fence and kind within \
            --tolerance seconds plus two of the device's fix intervals; each is matched \
            once. Alerts of devices not in the truth are ignored.
            """)

    @Option(help: "The truth (JSON from fleetsim fleet --truth).") var truth: String
    @Option(help: "fleetd's SQLite database.") var db: String
    @Option(help: "Matching tolerance, seconds (plus two fix intervals).") var tolerance = 60.0
    @Flag(help: "Print the scores as one JSON object.") var json = false
    @Flag(help: "Also list every missed true fence event and every phantom fence alert.")
    var misses = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: truth) else {
            throw ValidationError("--truth \(truth): cannot read the file")
        }
        let t: FleetTruth
        do {
            t = try JSONDecoder().decode(FleetTruth.self, from: data)
        } catch {
            throw ValidationError("--truth \(truth): not a fleetsim truth file: \(error)")
        }
        let reader: SQLiteReader
        do {
            reader = try SQLiteReader(path: db)
        } catch {
            throw ValidationError("--db \(db): \(error)")
        }
        let (alerts, trips) = try Self.read(reader)
        let score = FleetScore(truth: t, alerts: alerts, trips: trips, toleranceS: tolerance)
        if json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys]
            print(String(decoding: try enc.encode(score.summary), as: UTF8.self))
        } else {
            print(score.text)
        }
        if misses {
            for line in score.misses { print(line) }
        }
    }

    /// Every alert and every finished trip in the database.
    static func read(_ reader: some StoreReading) throws -> ([FleetScore.Alert], [FleetScore.Trip])
    {
        var alerts: [FleetScore.Alert] = []
        var after: Int64 = 0
        while true {
            let page = try reader.alerts(afterId: after, limit: 10_000, filter: AlertFilter())
            for a in page {
                alerts.append(
                    FleetScore.Alert(device: a.device, type: a.type, fence: a.fence, timeMs: a.time)
                )
            }
            guard let last = page.last, page.count == 10_000 else { break }
            after = last.id
        }
        var trips: [FleetScore.Trip] = []
        var filter = TripFilter()
        while true {
            let page = try reader.trips(filter: filter, limit: 10_000)
            for r in page where !r.open {
                trips.append(
                    FleetScore.Trip(
                        device: r.device, startMs: r.startTime, endMs: r.endTime,
                        distanceM: r.distanceM, maxSpeedKmh: r.maxSpeedKmh))
            }
            guard let last = page.last, page.count == 10_000 else { break }
            filter.afterStartMs = last.startTime
            filter.afterId = last.id
        }
        return (alerts, trips)
    }
}
