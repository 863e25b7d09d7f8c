import FleetJSON
import FleetModel

/// The OsmAnd protocol, as the Traccar Client and OsmAnd apps send it over
/// HTTP (one position per request; `protocols.md` §3): the query/form
/// style and the JSON style, each read into one `Fix` or refused with a
/// reason. Pure: the request's parts in, a fix or a rejection out.
///
/// Units as sent → as stored: `speed` knots → km/h (× 1.852) in the query
/// style, m/s → km/h (× 3.6) in JSON; `batt` percent, JSON
/// `battery.level` 0–1 → percent; −1 means unknown in JSON (speed,
/// heading, battery level). `accuracy` 0 means unknown (Traccar Client
/// sends 0 for plain GPS fixes). A `timestamp` without a zone
/// (`yyyy-MM-dd HH:mm:ss`) is read as UTC (Traccar reads it in its own
/// server's zone; fleetd has no zone of its own). Keys fleetd does not
/// map (`alarm`, `mock`, `cell`, `wifi`, `event`, `is_moving`, …) are
/// kept as the position's attributes.
public enum OsmAndDecoder {
    /// Why a request carries no fix.
    public struct Rejection: Error, Equatable, Sendable {
        public let reason: RejectReason
        public let detail: String
    }

    /// Largest integer `timestamp` read as seconds; above it, milliseconds.
    static let secondsLimit: Double = 2_147_483_647

    /// The query/form style: `pairs` from the URL query and, for a form
    /// body, from the body (in that order). `receivedMs` stands in for a
    /// missing `timestamp`.
    public static func decode(pairs: [(name: String, value: String)], receivedMs: Int64)
        -> Result<Fix, Rejection>
    {
        var p: [String: String] = [:]
        var attributes: [(key: String, value: JSONValue)] = []
        var repeated: [String: [JSONValue]] = [:]
        for (name, value) in pairs {
            if name == "cell" || name == "wifi" {
                repeated[name, default: []].append(.string(value))
            } else if p[name] == nil {
                p[name] = value
            }
        }
        guard let device = p["id"] ?? p["deviceid"], !device.isEmpty else {
            return .failure(
                Rejection(reason: .missingField, detail: "no id (or deviceid) parameter"))
        }
        guard JSONFixDecoder.isValidDevice(device) else {
            return .failure(
                Rejection(
                    reason: .badDevice,
                    detail: "id \"\(device.prefix(80))\" is not 1–64 characters of [A-Za-z0-9._:-]")
            )
        }
        var lat: Double?
        var lon: Double?
        if let location = p["location"] {
            let parts = location.split(separator: ",")
            guard parts.count == 2, let a = Double(parts[0]), let o = Double(parts[1]) else {
                return .failure(
                    Rejection(
                        reason: .badField,
                        detail: "location \"\(location.prefix(80))\" is not lat,lon"))
            }
            lat = a
            lon = o
        }
        func number(_ key: String) -> Result<Double?, Rejection> {
            guard let text = p[key], !text.isEmpty else { return .success(nil) }
            guard let v = Double(text), v.isFinite else {
                return .failure(
                    Rejection(
                        reason: .badField, detail: "\(key) \"\(text.prefix(80))\" is not a number"))
            }
            return .success(v)
        }
        func flag(_ key: String) -> Result<Bool?, Rejection> {
            guard let text = p[key], !text.isEmpty else { return .success(nil) }
            switch text.lowercased() {
            case "true", "1": return .success(true)
            case "false", "0": return .success(false)
            default:
                return .failure(
                    Rejection(
                        reason: .badField,
                        detail: "\(key) \"\(text.prefix(80))\" is not true or false"))
            }
        }
        do throws(Rejection) {
            if lat == nil { lat = try number("lat").get() }
            if lon == nil { lon = try number("lon").get() }
            guard let lat, let lon else {
                return .failure(
                    Rejection(reason: .missingField, detail: "no lat and lon (or location=lat,lon)")
                )
            }
            let time: Int64
            if let text = p["timestamp"], !text.isEmpty {
                guard let t = parseTime(text) else {
                    return .failure(
                        Rejection(
                            reason: .badTime,
                            detail:
                                "timestamp \"\(text.prefix(80))\" is neither Unix seconds, milliseconds nor an ISO 8601 time"
                        ))
                }
                time = t
            } else {
                time = receivedMs
            }
            let speedKnots = try number("speed").get()
            var course = try number("bearing").get()
            if course == nil { course = try number("heading").get() }
            var extra = FixExtra()
            extra.hdop = try number("hdop").get()
            extra.batteryPercent = try number("batt").get()
            extra.charging = try flag("charge").get()
            extra.alarm = pairs.first { $0.name == "alarm" }.flatMap {
                FixExtra.alarmKind($0.value)
            }
            extra.deviceKey = p["key"]
            let valid = try flag("valid").get() ?? true
            let accuracy = try number("accuracy").get()
            let mapped: Set<String> = [
                "id", "deviceid", "lat", "lon", "location", "timestamp", "speed", "bearing",
                "heading", "altitude", "accuracy", "hdop", "batt", "charge", "valid", "cell",
                "wifi", "key",
            ]
            var seen: Set<String> = []  // linear: no scan per key
            for (name, value) in pairs where !mapped.contains(name) {
                guard seen.insert(name).inserted else { continue }
                guard attributes.count < maxAttributes else {
                    return .failure(Self.tooMany(pairs.count))
                }
                attributes.append((name, attributeValue(value)))
            }
            for key in ["cell", "wifi"] {
                if let values = repeated[key] { attributes.append((key, .array(values))) }
            }
            extra.attributes = attributes.isEmpty ? nil : JSONValue.object(attributes).jsonText
            if let text = extra.attributes, text.utf8.count > maxAttributeBytes {
                return .failure(Self.tooLarge(text.utf8.count))
            }
            let fix = Fix(
                device: device, time: time, lat: lat, lon: lon,
                speedKmh: speedKnots.map { $0 * 1.852 }, course: course,
                altM: try number("altitude").get(),
                accuracyM: accuracy.flatMap { $0 > 0 ? $0 : nil }, valid: valid,
                extra: extra == FixExtra() ? nil : extra)
            return checkRange(fix)
        } catch {
            return .failure(error)
        }
    }

    /// The JSON style (`Content-Type: application/json`), Traccar Client 9
    /// and the background-geolocation plugin it uses.
    public static func decode(json body: [UInt8], receivedMs: Int64) -> Result<Fix, Rejection> {
        let doc: JSONValue
        do {
            doc = try JSONReader.parseDocument(body)
        } catch {
            return .failure(Rejection(reason: .jsonSyntax, detail: "\(error)"))
        }
        guard case .object = doc else {
            return .failure(
                Rejection(reason: .badField, detail: "the body is \(doc.kindName), not an object"))
        }
        guard case .string(let device)? = doc["device_id"] ?? doc["deviceid"] ?? doc["id"] else {
            return .failure(Rejection(reason: .missingField, detail: "no device_id string"))
        }
        guard JSONFixDecoder.isValidDevice(device) else {
            return .failure(
                Rejection(
                    reason: .badDevice,
                    detail:
                        "device_id \"\(device.prefix(80))\" is not 1–64 characters of [A-Za-z0-9._:-]"
                ))
        }
        guard let location = doc["location"] else {
            return .failure(Rejection(reason: .missingField, detail: "no location"))
        }
        guard case .object = location else {
            return .failure(
                Rejection(
                    reason: .badField,
                    detail:
                        "location is \(location.kindName), not one object (one position per request)"
                ))
        }
        guard let coords = location["coords"], case .object = coords else {
            return .failure(Rejection(reason: .missingField, detail: "no location.coords object"))
        }
        func number(_ v: JSONValue?, _ path: String, unknownBelowZero: Bool = false) -> Result<
            Double?, Rejection
        > {
            switch v {
            case nil, .null?: return .success(nil)
            case .number(let n)?: return .success(unknownBelowZero && n < 0 ? nil : n)
            case let other?:
                return .failure(
                    Rejection(
                        reason: .badField, detail: "\(path) is \(other.kindName), not a number"))
            }
        }
        do throws(Rejection) {
            guard let lat = try number(coords["latitude"], "location.coords.latitude").get(),
                let lon = try number(coords["longitude"], "location.coords.longitude").get()
            else {
                return .failure(
                    Rejection(
                        reason: .missingField, detail: "no location.coords.latitude and longitude"))
            }
            let time: Int64
            switch location["timestamp"] {
            case nil, .null?: time = receivedMs
            case .string(let s)?:
                guard let t = parseTime(s) else {
                    return .failure(
                        Rejection(
                            reason: .badTime,
                            detail: "location.timestamp \"\(s.prefix(80))\" is not an ISO 8601 time"
                        ))
                }
                time = t
            case .number(let n)?:
                guard let t = parseTime(JSONValue.number(n).jsonText) else {
                    return .failure(
                        Rejection(
                            reason: .badTime, detail: "location.timestamp \(n) is out of range"))
                }
                time = t
            case let other?:
                return .failure(
                    Rejection(reason: .badTime, detail: "location.timestamp is \(other.kindName)"))
            }
            let speed = try number(coords["speed"], "location.coords.speed", unknownBelowZero: true)
                .get()
            let heading = try number(
                coords["heading"], "location.coords.heading", unknownBelowZero: true
            ).get()
            let accuracy = try number(coords["accuracy"], "location.coords.accuracy").get()
            var extra = FixExtra()
            if case .string(let key)? = doc["key"] { extra.deviceKey = key }
            if let battery = location["battery"] {
                let level = try number(
                    battery["level"], "location.battery.level", unknownBelowZero: true
                ).get()
                extra.batteryPercent = level.map { ($0 * 1000).rounded() / 10 }
                if case .bool(let c)? = battery["is_charging"] { extra.charging = c }
            }
            var attributes: [(key: String, value: JSONValue)] = []
            if case .object(let members) = location {
                var seen: Set<String> = []
                for (k, v) in members
                where !["coords", "timestamp", "battery", "uuid", "_"].contains(k)
                    && seen.insert(k).inserted
                {
                    guard attributes.count < maxAttributes else {
                        return .failure(Self.tooMany(members.count))
                    }
                    attributes.append((k, v))
                }
            }
            extra.attributes = attributes.isEmpty ? nil : JSONValue.object(attributes).jsonText
            if let text = extra.attributes, text.utf8.count > maxAttributeBytes {
                return .failure(Self.tooLarge(text.utf8.count))
            }
            let fix = Fix(
                device: device, time: time, lat: lat, lon: lon, speedKmh: speed.map { $0 * 3.6 },
                course: heading,
                altM: try number(coords["altitude"], "location.coords.altitude").get(),
                accuracyM: accuracy.flatMap { $0 > 0 ? $0 : nil },
                extra: extra == FixExtra() ? nil : extra)
            return checkRange(fix)
        } catch {
            return .failure(error)
        }
    }

    /// Unix seconds (fractional allowed), milliseconds (integers from
    /// 2³¹−1), RFC 3339 / ISO 8601 with a zone, or `yyyy-MM-dd HH:mm:ss`
    /// (UTC). Nil for anything else.
    public static func parseTime(_ text: String) -> Int64? {
        if let v = Double(text), v.isFinite {
            let ms = v >= secondsLimit ? v : v * 1000
            guard ms >= 0, ms < 1e15 else { return nil }
            return Int64(ms.rounded())
        }
        let bytes = Array(text.utf8)
        if let t = RFC3339.parse(bytes) { return t }
        // "yyyy-MM-dd HH:mm:ss[.SSS]" without a zone: read as UTC.
        if bytes.count >= 19, bytes[10] == UInt8(ascii: " ") {
            var iso = bytes
            iso[10] = UInt8(ascii: "T")
            return RFC3339.parse(iso + Array("Z".utf8))
        }
        return nil
    }

    /// A query value as an attribute: a number or a boolean when it reads as one, else text.
    /// Attributes kept with one position at most (unmapped parameters or
    /// members), and the size of their JSON text at most, bytes: beyond
    /// either the request is refused (`oversize`), not stored in part.
    public static let maxAttributes = 64
    public static let maxAttributeBytes = 8192

    static func tooMany(_ n: Int) -> Rejection {
        Rejection(
            reason: .oversize,
            detail:
                "more than \(maxAttributes) attributes (\(n) parameters); at most \(maxAttributes) are kept"
        )
    }

    static func tooLarge(_ bytes: Int) -> Rejection {
        Rejection(
            reason: .oversize,
            detail: "attributes of \(bytes) bytes; at most \(maxAttributeBytes) are kept")
    }

    static func attributeValue(_ text: String) -> JSONValue {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let v = Double(text), v.isFinite, text.first != "+",
            !text.hasPrefix("0") || text == "0" || text.hasPrefix("0.")
        {
            return .number(v)
        }
        return .string(text)
    }

    private static func checkRange(_ fix: Fix) -> Result<Fix, Rejection> {
        guard (-90...90).contains(fix.lat) else {
            return .failure(
                Rejection(reason: .latOutOfRange, detail: "lat \(fix.lat) is outside −90…90"))
        }
        guard (-180...180).contains(fix.lon) else {
            return .failure(
                Rejection(reason: .lonOutOfRange, detail: "lon \(fix.lon) is outside −180…180"))
        }
        return .success(fix)
    }
}
