import FleetJSON

/// An alert's JSON, the contract `fleetctl alerts --json`, the alert log and
/// the API share (add fields, never rename): `id`, `time` (RFC 3339 UTC,
/// ms), `device`, `type`, `fence`, `lat`, `lon`, then the details' members
/// (`duration_s`, `crossed`, …) when present, and `acked_by`, `acked_at`
/// (RFC 3339 UTC) once acknowledged.
extension AlertRecord: Codable {
    static let fields: Set<String> = [
        "id", "time", "device", "type", "fence", "lat", "lon", "acked_by", "acked_at",
    ]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        id = try c.decode(Int64.self, forKey: JSONKey("id"))
        time = try RecordCoding.millis(c, JSONKey("time"))
        device = try c.decode(String.self, forKey: JSONKey("device"))
        type = try c.decode(String.self, forKey: JSONKey("type"))
        fence = try c.decodeIfPresent(String.self, forKey: JSONKey("fence"))
        lat = try c.decodeIfPresent(Double.self, forKey: JSONKey("lat"))
        lon = try c.decodeIfPresent(Double.self, forKey: JSONKey("lon"))
        ackedBy = try c.decodeIfPresent(String.self, forKey: JSONKey("acked_by"))
        ackedMs =
            try c.contains(JSONKey("acked_at")) && !c.decodeNil(forKey: JSONKey("acked_at"))
            ? RecordCoding.millis(c, JSONKey("acked_at")) : nil
        let extra = try c.allKeys.filter { !Self.fields.contains($0.stringValue) }
            .sorted { $0.stringValue < $1.stringValue }
            .map { ($0.stringValue, try c.decode(JSONValue.self, forKey: $0)) }
        details = extra.isEmpty ? nil : JSONValue.object(extra).jsonText
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(id, forKey: JSONKey("id"))
        try c.encode(RecordCoding.time(time), forKey: JSONKey("time"))
        try c.encode(device, forKey: JSONKey("device"))
        try c.encode(type, forKey: JSONKey("type"))
        try c.encode(fence, forKey: JSONKey("fence"))
        try c.encode(lat, forKey: JSONKey("lat"))
        try c.encode(lon, forKey: JSONKey("lon"))
        if let ackedBy, let ackedMs {
            try c.encode(ackedBy, forKey: JSONKey("acked_by"))
            try c.encode(RecordCoding.time(ackedMs), forKey: JSONKey("acked_at"))
        }
        if let details,
            case .object(let members)? = try? JSONReader.parseDocument(Array(details.utf8))
        {
            for (k, v) in members where !Self.fields.contains(k) {
                try c.encode(v, forKey: JSONKey(k))
            }
        }
    }
}
