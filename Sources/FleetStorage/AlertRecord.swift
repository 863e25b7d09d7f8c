import FleetJSON
import FleetModel

/// A stored alert, as readers see it.
public struct AlertRecord: Sendable, Equatable {
    /// Increasing id: a later commit never gets a smaller one.
    public var id: Int64
    /// Unix milliseconds.
    public var time: Int64
    public var device: String
    public var type: String
    public var fence: String?
    public var lat: Double?
    public var lon: Double?
    /// Details as a JSON object text (`duration_s`, `crossed`), or nil.
    public var details: String?
    /// Who acknowledged it (`user:NAME`, `token:NAME`) and when (Unix ms); nil until then.
    public var ackedBy: String?
    public var ackedMs: Int64?

    public init(
        id: Int64, time: Int64, device: String, type: String, fence: String?, lat: Double?,
        lon: Double?, details: String?, ackedBy: String? = nil, ackedMs: Int64? = nil
    ) {
        self.ackedBy = ackedBy
        self.ackedMs = ackedMs
        self.id = id
        self.time = time
        self.device = device
        self.type = type
        self.fence = fence
        self.lat = lat
        self.lon = lon
        self.details = details
    }
}

extension AlertRecord {
    /// The text member `key` of `details` (nil when absent, not text, or
    /// the details are not an object).
    public func detailText(_ key: String) -> String? {
        guard let details, let doc = try? JSONReader.parseDocument(Array(details.utf8)),
            case .string(let text)? = doc[key]
        else { return nil }
        return text
    }

    /// The alert as one JSON object (no newline): the `Codable` form, written
    /// by hand because the alert log writes one per committed alert on the
    /// writer thread (tested equal to the `Codable` form).
    public var jsonLine: String {
        func num(_ v: Double?) -> String { v.map { JSONValue.number($0).jsonText } ?? "null" }
        var s = "{\"id\":\(id),\"time\":\(JSONValue.quote(RFC3339.format(millis: time))),"
        s += "\"device\":\(JSONValue.quote(device)),\"type\":\(JSONValue.quote(type)),"
        s +=
            "\"fence\":\(fence.map(JSONValue.quote) ?? "null"),\"lat\":\(num(lat)),\"lon\":\(num(lon))"
        // The details object's members, cut by bytes (ASCII braces), not
        // by characters: no grapheme breaking over JSON text.
        if let d = details, d.utf8.count > 2, d.utf8.first == UInt8(ascii: "{"),
            let members = String(d.utf8.dropFirst().dropLast())
        {
            s += "," + members
        }
        if let ackedBy, let ackedMs {
            s += ",\"acked_by\":\(JSONValue.quote(ackedBy)),"
            s += "\"acked_at\":\(JSONValue.quote(RFC3339.format(millis: ackedMs)))"
        }
        return s + "}"
    }
}
