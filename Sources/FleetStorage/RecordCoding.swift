import FleetModel
import Foundation

/// The encoder and decoder behind every JSON record other tools read
/// (`fleetctl … --json`, the status file; the API next): compact, slashes
/// unescaped, field names as the types' coding keys say, members in sorted
/// order (JSON objects are unordered; sorting makes every line the same
/// for the same record).
public enum RecordCoding {
    /// One record as one line of JSON (no newline).
    public static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads one record. Throws `DecodingError` naming the field.
    public static func read<T: Decodable>(_ type: T.Type, from bytes: some Sequence<UInt8>) throws
        -> T
    {
        try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// A time as records carry it: RFC 3339, UTC, milliseconds.
    static func time(_ ms: Int64) -> String { RFC3339.format(millis: ms) }

    /// The Unix ms of a record's RFC 3339 time; throws naming `key`.
    public static func millis<K: CodingKey>(
        _ c: KeyedDecodingContainer<K>, _ key: K
    ) throws -> Int64 {
        let text = try c.decode(String.self, forKey: key)
        guard let ms = RFC3339.parse(Array(text.utf8)) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "\"\(text)\" is not an RFC 3339 time")
        }
        return ms
    }

    /// `v` rounded to one decimal (metres, km/h in records).
    static func tenth(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}
