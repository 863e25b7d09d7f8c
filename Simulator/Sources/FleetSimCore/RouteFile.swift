import FleetModel
import Foundation

/// Reads routes from CSV (`lat,lon,time[,speed_mps]`, header optional, time
/// RFC 3339 or Unix milliseconds) and GPX 1.0/1.1 (`trkpt` with `time`,
/// optional `ele` and `speed`).
public enum RouteFile {
    /// Loads `path`; the device id defaults to the file name without its extension.
    public static func load(_ path: String, device: String? = nil) throws(RouteFileError) -> Route {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)
        else {
            throw RouteFileError(
                file: path, line: nil, message: "cannot read the file as UTF-8 text")
        }
        let name =
            device ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let points =
            path.lowercased().hasSuffix(".gpx")
            ? try gpx(text, file: path) : try csv(text, file: path)
        guard !points.isEmpty else {
            throw RouteFileError(file: path, line: nil, message: "no points")
        }
        for i in 1..<points.count where points[i].time < points[i - 1].time {
            throw RouteFileError(file: path, line: nil, message: "point \(i) goes back in time")
        }
        return Route(device: name, points: points)
    }

    /// Parses CSV text: `lat,lon,time[,speed_mps]`.
    public static func csv(_ text: String, file: String) throws(RouteFileError) -> [RoutePoint] {
        var points: [RoutePoint] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
        {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if n == 0, f.first == "lat" { continue }
            func bad(_ m: String) -> RouteFileError {
                RouteFileError(file: file, line: n + 1, message: m)
            }
            guard f.count >= 3 else {
                throw bad("expected lat,lon,time[,speed_mps], found \(f.count) fields")
            }
            guard let lat = Double(f[0]), abs(lat) <= 90 else {
                throw bad("lat \"\(f[0])\" is not a latitude")
            }
            guard let lon = Double(f[1]), abs(lon) <= 180 else {
                throw bad("lon \"\(f[1])\" is not a longitude")
            }
            guard let time = parseTime(f[2]) else {
                throw bad("time \"\(f[2])\" is neither RFC 3339 nor Unix ms")
            }
            var speed: Double?
            if f.count > 3, !f[3].isEmpty {
                guard let s = Double(f[3]), s >= 0 else {
                    throw bad("speed_mps \"\(f[3])\" is not a speed")
                }
                speed = s
            }
            points.append(RoutePoint(lat: lat, lon: lon, time: time, speedMps: speed))
        }
        return points
    }

    static func parseTime(_ s: String) -> Int64? {
        if let ms = Int64(s) { return ms }
        return RFC3339.parse(Array(s.utf8))
    }

    /// Parses GPX text: every `trkpt` (and `rtept`) in document order.
    public static func gpx(_ text: String, file: String) throws(RouteFileError) -> [RoutePoint] {
        var points: [RoutePoint] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<trkpt") ?? rest.range(of: "<rtept") {
            let tagEnd = rest[open.upperBound...].firstIndex(of: ">")
            guard let tagEnd else {
                throw RouteFileError(file: file, line: nil, message: "unclosed <trkpt> tag")
            }
            let attrs = rest[open.upperBound..<tagEnd]
            let selfClosing = attrs.hasSuffix("/")
            let closeTag =
                rest[tagEnd...].range(of: "</trkpt>") ?? rest[tagEnd...].range(of: "</rtept>")
            let body =
                selfClosing
                ? Substring("")
                : rest[rest.index(after: tagEnd)..<(closeTag?.lowerBound ?? rest.endIndex)]
            let index = points.count
            func bad(_ m: String) -> RouteFileError {
                RouteFileError(file: file, line: nil, message: "point \(index): \(m)")
            }
            guard let latText = attribute("lat", in: attrs), let lat = Double(latText),
                abs(lat) <= 90
            else {
                throw bad("missing or bad lat")
            }
            guard let lonText = attribute("lon", in: attrs), let lon = Double(lonText),
                abs(lon) <= 180
            else {
                throw bad("missing or bad lon")
            }
            guard let timeText = element("time", in: body),
                let time = RFC3339.parse(Array(timeText.utf8))
            else {
                throw bad("missing or bad <time>")
            }
            let ele = element("ele", in: body).flatMap(Double.init)
            let speed = element("speed", in: body).flatMap(Double.init)
            points.append(RoutePoint(lat: lat, lon: lon, time: time, speedMps: speed, altM: ele))
            rest = selfClosing ? rest[tagEnd...] : rest[(closeTag?.upperBound ?? rest.endIndex)...]
        }
        return points
    }

    static func attribute(_ name: String, in attrs: Substring) -> String? {
        for quote in ["\"", "'"] {
            if let r = attrs.range(of: " \(name)=\(quote)") ?? attrs.range(of: "\t\(name)=\(quote)")
                ?? attrs.range(of: "\n\(name)=\(quote)"),
                let end = attrs[r.upperBound...].firstIndex(of: Character(quote))
            {
                return String(attrs[r.upperBound..<end])
            }
        }
        return nil
    }

    static func element(_ name: String, in body: Substring) -> String? {
        guard let open = body.range(of: "<\(name)>"),
            let close = body[open.upperBound...].range(of: "</\(name)>")
        else { return nil }
        return body[open.upperBound..<close.lowerBound].trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}
