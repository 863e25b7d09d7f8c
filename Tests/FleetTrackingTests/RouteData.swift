import FleetGeo
import FleetModel
import Foundation

@testable import FleetTracking

/// The bundled real routes (`Simulator/routes/*.csv`) and the route zones
/// (`config/geofences.geojson`), read from the source tree.
enum RouteData {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let routes = ["t01_munich_car_1hz", "t02_visnjan_car", "t03_limerick_bus304"]

    /// A route's fixes for device `device` (CSV `lat,lon,time,speed_mps`).
    static func fixes(_ name: String, device: String) throws -> [Fix] {
        let url = root.appendingPathComponent("Simulator/routes/\(name).csv")
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [Fix] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 3, let lat = Double(f[0]), let lon = Double(f[1]),
                let t = RFC3339.parse(Array(f[2].utf8))
            else { throw RouteProblem(description: "\(name): bad line \(line)") }
            let speed = f.count > 3 ? Double(f[3]).map { $0 * 3.6 } : nil
            out.append(Fix(device: device, time: t, lat: lat, lon: lon, speedKmh: speed))
        }
        return out
    }

    /// The route followed by five minutes parked at its last position (a fix
    /// every 10 s), so that its last trip ends.
    static func fixesParkedAfter(_ name: String, device: String) throws -> [Fix] {
        var fixes = try fixes(name, device: device)
        let last = fixes[fixes.count - 1]
        for k in 1...30 {
            var f = last
            f.time += Int64(k) * 10_000
            f.speedKmh = last.speedKmh == nil ? nil : 0
            fixes.append(f)
        }
        return fixes
    }

    static func zones() throws -> FenceIndex {
        let url = root.appendingPathComponent("config/geofences.geojson")
        let bytes = Array(try Data(contentsOf: url))
        return FenceIndex(fences: try GeoJSONFenceLoader.load(bytes, file: url.path))
    }

    struct RouteProblem: Error, CustomStringConvertible { let description: String }
}

/// Runs fixes through one tracker, collecting everything it produced.
struct Replay {
    var tracker: Tracker
    var states: [String: DeviceState] = [:]
    var alerts: [Alert] = []
    var trips: [Trip] = []
    var dispositions: [FixDisposition] = []

    init(fences: FenceIndex, settings: TrackerSettings = TrackerSettings()) {
        tracker = Tracker(fences: fences, settings: settings)
    }

    mutating func feed(_ fixes: some Sequence<Fix>) {
        for f in fixes {
            let o = tracker.process(f, state: states[f.device])
            if let s = o.state { states[f.device] = s }
            alerts += o.alerts
            trips += o.trips
            dispositions.append(o.disposition)
        }
    }

    /// Every state as the database would give it back: through its stored
    /// columns and text forms (what `SQLiteStore.loadStates` does).
    mutating func reloadStates() {
        for (device, s) in states { states[device] = Replay.reloaded(s) }
    }

    /// `s` as the writer stores it and reads it back (`DeviceStateCodec`).
    static func reloaded(_ s: DeviceState) -> DeviceState {
        DeviceStateCodec.encode(s).withUnsafeBytes { DeviceStateCodec.decode($0) }!
    }

    /// `s` through the text form of schema v5–v6 (rows written before v7).
    static func reloadedFromText(_ s: DeviceState) -> DeviceState {
        DeviceStateText.restore(
            lastTime: s.lastTime, lat: s.lat, lon: s.lon, positionTime: s.positionTime,
            fencesText: s.fencesText, tracking: DeviceStateText.encode(s), odometerM: s.odometerM,
            silent: s.silent)
    }

    /// Alerts and trips as golden-file lines.
    var lines: [String] {
        func t(_ ms: Int64) -> String { RFC3339.format(millis: ms) }
        var out = alerts.map { a in
            "\(t(a.time)) \(a.device) \(a.type.rawValue) \(a.fence ?? "-") \(a.detailsJSON ?? "")"
        }
        for x in trips {
            out.append(
                "trip \(x.device) \(t(x.start.time)) → \(t(x.end.time)) \(x.startFence ?? "-") → \(x.endFence ?? "-") "
                    + "\(Int(x.distanceM.rounded())) m \(Int(x.durationS)) s max \(Int(x.maxSpeedKmh.rounded())) km/h "
                    + "\(x.fixes) fixes")
        }
        return out
    }
}
