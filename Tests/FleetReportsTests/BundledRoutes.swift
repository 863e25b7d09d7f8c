import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking
import Foundation

/// The bundled routes (`Simulator/routes/*.csv`) through the tracker with
/// the bundled fences (`config/geofences.geojson`), as the store would
/// give them back: alerts, trips and position spans. Pure and repeatable.
enum BundledRoutes {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let names = ["t01_munich_car_1hz", "t02_visnjan_car", "t03_limerick_bus304"]

    static func fences() throws -> [Fence] {
        let url = root.appendingPathComponent("config/geofences.geojson")
        return try GeoJSONFenceLoader.load(Array(try Data(contentsOf: url)), file: url.path)
    }

    /// Every route is moved to start on 2026-01-05 at 08:00 UTC (gaps and
    /// speeds unchanged), so that one day holds them all.
    static let day: Int64 = 1_767_571_200_000  // 2026-01-05T00:00:00Z

    /// A route's fixes (CSV `lat,lon,time,speed_mps`), moved to `day`
    /// 08:00, then five minutes parked at the end so its last trip ends.
    static func fixes(_ name: String) throws -> [Fix] {
        let url = root.appendingPathComponent("Simulator/routes/\(name).csv")
        var out: [Fix] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline)
            .dropFirst()
        {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 3, let lat = Double(f[0]), let lon = Double(f[1]),
                let t = RFC3339.parse(Array(f[2].utf8))
            else { continue }
            let speed = f.count > 3 ? Double(f[3]).map { $0 * 3.6 } : nil
            out.append(Fix(device: name, time: t, lat: lat, lon: lon, speedKmh: speed))
        }
        let shift = day + 8 * 3_600_000 - out[0].time
        for i in out.indices { out[i].time += shift }
        let last = out[out.count - 1]
        for k in 1...30 {
            var f = last
            f.time += Int64(k) * 10_000
            f.speedKmh = last.speedKmh == nil ? nil : 0
            out.append(f)
        }
        return out
    }

    /// Everything the tracker made of the routes, as records.
    static func records() throws -> (
        fixes: [Fix], alerts: [AlertRecord], trips: [TripRecord], spans: [PositionSpan]
    ) {
        let fences = try fences()
        // A 50 km/h limit everywhere, so that there is overspeed to report.
        var settings = TrackerSettings()
        settings.speedLimitKmh = 50
        var tracker = Tracker(fences: FenceIndex(fences: fences), settings: settings)
        var alerts: [AlertRecord] = []
        var trips: [TripRecord] = []
        var spans: [PositionSpan] = []
        var all: [Fix] = []
        for name in names {
            var state: DeviceState?
            var span: PositionSpan?
            for fix in try fixes(name) {
                let o = tracker.process(fix, state: state)
                if let s = o.state { state = s }
                all.append(fix)
                if o.disposition == .accepted {
                    var s =
                        span
                        ?? PositionSpan(
                            device: name, firstMs: fix.time, lastMs: fix.time, count: 0,
                            maxSpeedKmh: nil)
                    s.lastMs = fix.time
                    s.count += 1
                    if let v = fix.speedKmh { s.maxSpeedKmh = max(s.maxSpeedKmh ?? v, v) }
                    span = s
                }
                for a in o.alerts {
                    alerts.append(
                        AlertRecord(
                            id: Int64(alerts.count + 1), time: a.time, device: a.device,
                            type: a.type.rawValue, fence: a.fence, lat: a.lat, lon: a.lon,
                            details: a.detailsJSON))
                }
                for t in o.trips {
                    trips.append(
                        TripRecord(
                            id: Int64(trips.count + 1), device: t.device, vehicle: nil,
                            startTime: t.start.time, endTime: t.end.time, startLat: t.start.lat,
                            startLon: t.start.lon, endLat: t.end.lat, endLon: t.end.lon,
                            startFence: t.startFence, endFence: t.endFence,
                            distanceM: t.distanceM, maxSpeedKmh: t.maxSpeedKmh,
                            fixes: Int(t.fixes), startOdometerM: t.start.odometerM,
                            endOdometerM: t.end.odometerM))
                }
            }
            if let span { spans.append(span) }
        }
        alerts.sort { ($0.time, $0.id) < ($1.time, $1.id) }
        return (all, alerts, trips, spans)
    }
}
