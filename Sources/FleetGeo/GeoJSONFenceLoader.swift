import FleetJSON
import FleetModel

/// Reads fences from a GeoJSON FeatureCollection (RFC 7946).
///
/// Accepted geometries: `Polygon` and `MultiPolygon` (holes honoured),
/// `Point` with `properties.radius_m` (a circle), `LineString` with
/// `properties.width_m` (a corridor). A feature is named by its `id`, else
/// `properties.id`, else `properties.name`.
///
/// Validation is complete: the loader reports every problem of every feature
/// (feature index, id, what is wrong) and loads nothing when there is one.
/// Longitudes of polygons may run past ±180° (unwrapped rings) up to ±360°.
public enum GeoJSONFenceLoader {
    /// Parses `bytes`; `file` labels errors. Throws `FenceFileError`.
    public static func load(_ bytes: [UInt8], file: String) throws(FenceFileError) -> [Fence] {
        let document: JSONValue
        do {
            document = try JSONReader.parseDocument(bytes)
        } catch {
            throw FenceFileError(
                file: file,
                problems: [
                    FenceProblem(featureIndex: nil, id: nil, message: "not valid JSON: \(error)")
                ])
        }
        var problems: [FenceProblem] = []
        guard document["type"] == .string("FeatureCollection") else {
            throw FenceFileError(
                file: file,
                problems: [
                    FenceProblem(
                        featureIndex: nil, id: nil,
                        message: "top level must be an object with \"type\": \"FeatureCollection\"")
                ])
        }
        guard case .array(let features) = document["features"] else {
            throw FenceFileError(
                file: file,
                problems: [
                    FenceProblem(
                        featureIndex: nil, id: nil, message: "\"features\" must be an array")
                ])
        }
        var fences: [Fence] = []
        var seen: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            var parser = FeatureParser(index: index)
            let fence = parser.parse(feature)
            if let id = parser.id {
                if let first = seen[id] {
                    parser.problem("id \"\(id)\" is already used by feature \(first)")
                } else {
                    seen[id] = index
                }
            }
            if let fence, parser.problems.isEmpty { fences.append(fence) }
            problems += parser.problems
        }
        guard problems.isEmpty else { throw FenceFileError(file: file, problems: problems) }
        return fences
    }
}

/// Parses one feature, collecting every problem it has.
struct FeatureParser {
    let index: Int
    var id: String?
    var problems: [FenceProblem] = []

    init(index: Int) { self.index = index }

    mutating func problem(_ message: String) {
        problems.append(FenceProblem(featureIndex: index, id: id, message: message))
    }

    mutating func parse(_ feature: JSONValue) -> Fence? {
        guard case .object = feature else {
            problem("a feature must be an object, found \(feature.kindName)")
            return nil
        }
        let properties = feature["properties"] ?? .null
        switch properties {
        case .object, .null: break
        default: problem("\"properties\" must be an object or null, found \(properties.kindName)")
        }
        id = Self.identity(feature, properties)
        if feature["type"] != .string("Feature") {
            problem("\"type\" must be \"Feature\"")
        }
        if id == nil {
            problem(
                "no id: give the feature an \"id\", or a \"properties.id\" or \"properties.name\"")
        }
        let speed = number(properties, "speed_limit_kmh", min: 0)
        let margin = number(properties, "margin_m", min: 0)
        let dwell = number(properties, "dwell_s", min: 0)
        let groups = groupList(properties)
        guard let geometry = feature["geometry"], case .object = geometry else {
            problem("\"geometry\" must be an object")
            return nil
        }
        let shape: FenceShape?
        let type: String
        if case .string(let t) = geometry["type"] { type = t } else { type = "" }
        let coordinates = geometry["coordinates"] ?? .null
        switch type {
        case "Polygon":
            shape = polygon(coordinates, label: "polygon").map { .polygons([$0]) }
        case "MultiPolygon":
            guard case .array(let items) = coordinates, !items.isEmpty else {
                problem("MultiPolygon coordinates must be a non-empty array of polygons")
                return nil
            }
            var polygons: [Polygon] = []
            for (i, item) in items.enumerated() {
                if let p = polygon(item, label: "polygon \(i)") { polygons.append(p) }
            }
            shape = polygons.count == items.count ? .polygons(polygons) : nil
        case "Point":
            let center = position(coordinates, label: "point", maxLon: 180)
            let radius = number(properties, "radius_m", min: 0, required: "a Point fence")
            if let radius, radius == 0 { problem("\"radius_m\" must be greater than 0") }
            if let center, let radius, radius > 0 {
                shape = .circle(center: center, radiusM: radius)
            } else {
                shape = nil
            }
        case "LineString":
            let width = number(properties, "width_m", min: 0, required: "a LineString fence")
            if let width, width == 0 { problem("\"width_m\" must be greater than 0") }
            guard case .array(let items) = coordinates, items.count >= 2 else {
                problem("LineString coordinates must be an array of at least 2 positions")
                return nil
            }
            var line: [Coordinate] = []
            for (i, item) in items.enumerated() {
                if let p = position(item, label: "position \(i)", maxLon: 180) { line.append(p) }
            }
            if let width, width > 0, line.count == items.count {
                shape = .corridor(line: line, halfWidthM: width / 2)
            } else {
                shape = nil
            }
        case "":
            problem("geometry has no \"type\"")
            return nil
        default:
            problem(
                "unknown geometry type \"\(type)\" (expected Polygon, MultiPolygon, Point or LineString)"
            )
            return nil
        }
        guard let shape, let id, problems.isEmpty else { return nil }
        var name = id
        if case .string(let n) = properties["name"] { name = n }
        return Fence(
            id: id, name: name, shape: shape, speedLimitKmh: speed, marginM: margin, dwellS: dwell,
            properties: properties == .null ? .object([]) : properties, groups: groups)
    }

    /// `properties.groups`: absent or null for every vehicle, else an array
    /// of 1–100 group names (`GroupName`).
    mutating func groupList(_ properties: JSONValue) -> Set<String>? {
        guard let value = properties["groups"], value != .null else { return nil }
        guard case .array(let items) = value, (1...100).contains(items.count) else {
            problem("\"groups\" must be an array of 1 to 100 group names, or null")
            return nil
        }
        var out: Set<String> = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                problem("\"groups\" item \(i) must be a string, found \(item.kindName)")
                continue
            }
            if let why = GroupName.problem(s) {
                problem("\"groups\" item \(i): \(why)")
            } else {
                out.insert(s)
            }
        }
        return out
    }

    static func identity(_ feature: JSONValue, _ properties: JSONValue) -> String? {
        for candidate in [feature["id"], properties["id"], properties["name"]] {
            switch candidate {
            case .string(let s) where !s.isEmpty: return s
            case .number(let n): return JSONValue.number(n).jsonText
            default: continue
            }
        }
        return nil
    }

    /// A non-negative number property, nil when absent (or when `required`
    /// names what needs it, a problem).
    mutating func number(
        _ properties: JSONValue, _ key: String, min: Double, required: String? = nil
    ) -> Double? {
        switch properties[key] {
        case nil, .null?:
            if let required {
                problem("\(required) needs \"properties.\(key)\" (a number of metres)")
            }
            return nil
        case .number(let n)?:
            guard n >= min, n.isFinite else {
                problem("\"\(key)\" must not be negative (found \(JSONValue.number(n).jsonText))")
                return nil
            }
            return n
        case let other?:
            problem("\"\(key)\" must be a number, found \(other.kindName)")
            return nil
        }
    }

    mutating func position(_ value: JSONValue, label: String, maxLon: Double) -> Coordinate? {
        guard case .array(let parts) = value, parts.count >= 2 else {
            problem("\(label): a position must be an array of at least 2 numbers [lon, lat]")
            return nil
        }
        guard case .number(let lon) = parts[0], case .number(let lat) = parts[1] else {
            problem("\(label): coordinates must be numbers")
            return nil
        }
        var ok = true
        if !(abs(lon) <= maxLon) {
            problem("\(label): longitude \(lon) out of range (−\(Int(maxLon))…\(Int(maxLon)))")
            ok = false
        }
        if !(abs(lat) <= 90) {
            problem("\(label): latitude \(lat) out of range (−90…90)")
            ok = false
        }
        return ok ? Coordinate(lat: lat, lon: lon) : nil
    }

    mutating func ring(_ value: JSONValue, label: String) -> Ring? {
        guard case .array(let items) = value else {
            problem("\(label): a ring must be an array of positions")
            return nil
        }
        var positions: [Coordinate] = []
        for (i, item) in items.enumerated() {
            if let p = position(item, label: "\(label) position \(i)", maxLon: 360) {
                positions.append(p)
            }
        }
        guard positions.count == items.count else { return nil }
        guard items.count >= 4 else {
            problem("\(label): a ring needs at least 4 positions, found \(items.count)")
            return nil
        }
        guard positions.first == positions.last else {
            problem("\(label): ring is not closed (its last position must repeat the first)")
            return nil
        }
        return Ring(positions)
    }

    mutating func polygon(_ value: JSONValue, label: String) -> Polygon? {
        guard case .array(let rings) = value, !rings.isEmpty else {
            problem("\(label): a polygon must be a non-empty array of rings")
            return nil
        }
        let shell = ring(rings[0], label: "\(label) exterior ring")
        var holes: [Ring] = []
        for i in 1..<rings.count {
            guard let hole = ring(rings[i], label: "\(label) hole \(i)") else { continue }
            if let shell {
                let outside = (0..<hole.edgeCount).contains {
                    shell.locate(x: hole.xs[$0], y: hole.ys[$0]) == .outside
                }
                if outside { problem("\(label) hole \(i): lies outside its exterior ring") }
            }
            holes.append(hole)
        }
        guard let shell, holes.count == rings.count - 1 else { return nil }
        return Polygon(shell: shell, holes: holes)
    }
}
