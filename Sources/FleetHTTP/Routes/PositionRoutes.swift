import FleetJSON
import FleetModel
import FleetReports
import FleetStorage
import Foundation
import Hummingbird

/// `GET /api/v1/devices/{id}/positions?from=&to=&limit=` as JSON (paged),
/// GeoJSON (`Accept: application/geo+json`: a FeatureCollection with the
/// track as one LineString) or CSV (`Accept: text/csv`); and
/// `GET /api/v1/devices/{id}/track.gpx` (GPX 1.1).
enum PositionRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        let params: Set<String> = ["from", "to", "limit"]
        return [
            Route(.get, "/api/v1/devices/{id}/positions", role: .driver, parameters: params) { r in
                let (id, positions, limit) = try await read(r, d)
                let accept = r.header(.accept)?.lowercased() ?? ""
                if accept.contains("application/geo+json") {
                    return Replies.body(
                        PositionFormats.geoJSON(id, positions), type: "application/geo+json")
                }
                if accept.contains("text/csv") {
                    return Replies.body(
                        PositionFormats.csv(positions), type: "text/csv; charset=utf-8")
                }
                var next: String?
                if positions.count == limit, let last = positions.last {
                    var q = r.query
                    q["from"] = String(last.fix.time + 1)
                    q["limit"] = String(limit)
                    next = Replies.link("/api/v1/devices/\(id)/positions", q)
                }
                return Replies.page(positions.map(\.jsonLine), next: next)
            },
            Route(.get, "/api/v1/devices/{id}/track.gpx", role: .driver, parameters: params) { r in
                let (id, positions, _) = try await read(r, d)
                return Replies.body(PositionFormats.gpx(id, positions), type: "application/gpx+xml")
            },
        ]
    }

    static func read(_ r: APIRequest, _ d: RouteDeps) async throws -> (
        String, [PositionRecord], Int
    ) {
        let id = try r.device(r.path["id"]!, name: "id")
        let limit = try r.int("limit", default: 1000, range: 1...100_000)
        let from = try r.time("from")
        let to = try r.time("to")
        if let from, let to, to <= from {
            throw APIError.badParameter("to", "must be after from")
        }
        let scope = r.caller.scope
        // One read (one hop off the event loop): the device (one the caller
        // does not see is none), then its positions.
        let positions = try await d.read { r -> [PositionRecord]? in
            guard try RouteDeps.sees(scope, id, r), try r.device(id) != nil else { return nil }
            return try r.positions(device: id, fromMs: from, toMs: to, limit: limit)
        }
        guard let positions else { throw APIError.notFound("no device \(id)") }
        return (id, positions, limit)
    }
}

/// Positions as GeoJSON (RFC 7946), CSV (RFC 4180) and GPX 1.1.
enum PositionFormats {
    static func geoJSON(_ device: String, _ positions: [PositionRecord]) -> String {
        let coords = positions.map { "[\(num($0.fix.lon)),\(num($0.fix.lat))]" }.joined(
            separator: ",")
        let times = positions.map { JSONValue.quote(RFC3339.format(millis: $0.fix.time)) }
            .joined(separator: ",")
        let geometry =
            positions.count == 1
            ? "{\"type\":\"Point\",\"coordinates\":\(coords)}"
            : "{\"type\":\"LineString\",\"coordinates\":[\(coords)]}"
        let feature =
            positions.isEmpty
            ? ""
            : "{\"type\":\"Feature\",\"geometry\":\(geometry),\"properties\":{\"device\":\(JSONValue.quote(device)),\"times\":[\(times)]}}"
        return "{\"type\":\"FeatureCollection\",\"features\":[\(feature)]}"
    }

    static func csv(_ positions: [PositionRecord]) -> String {
        var out =
            "device,time,lat,lon,speed_kmh,course,alt_m,accuracy_m,sats,ignition,valid,flag\r\n"
        for p in positions {
            let f = p.fix
            let fields: [String] = [
                field(f.device), RFC3339.format(millis: f.time), num(f.lat), num(f.lon),
                f.speedKmh.map(num) ?? "", f.course.map(num) ?? "", f.altM.map(num) ?? "",
                f.accuracyM.map(num) ?? "", f.sats.map(String.init) ?? "",
                f.ignition.map { $0 ? "true" : "false" } ?? "", f.valid ? "true" : "false",
                PositionRecord.flag(p.disposition),
            ]
            out += fields.joined(separator: ",") + "\r\n"
        }
        return out
    }

    static func gpx(_ device: String, _ positions: [PositionRecord]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="fleetd" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(XML.escape(device))</name><trkseg>

            """
        for p in positions {
            out += "<trkpt lat=\"\(num(p.fix.lat))\" lon=\"\(num(p.fix.lon))\">"
            if let alt = p.fix.altM { out += "<ele>\(num(alt))</ele>" }
            out += "<time>\(RFC3339.format(millis: p.fix.time))</time></trkpt>\n"
        }
        return out + "</trkseg></trk>\n</gpx>\n"
    }

    static func num(_ v: Double) -> String { JSONValue.number(v).jsonText }

    static func field(_ s: String) -> String { CSV.field(s) }
}
