import FleetJSON
import FleetModel
import NIOCore

/// The data of a `positions_compact` event (`GET /api/v1/events?positions=compact`):
/// a round's positions as rows of the few fields a live map draws, about a
/// seventh of the bytes of the `positions` batch's full records.
///
/// ```json
/// {"fields":["device","time_ms","lat","lon","speed_kmh","course"],
///  "rows":[["truck-7",1764432000123,52.51,13.4,42.5,180],…]}
/// ```
///
/// `fields` names each row's members in order: `device` (string),
/// `time_ms` (fix time, Unix milliseconds, UTC), `lat` and `lon` (degrees,
/// WGS 84, as stored), `speed_kmh` and `course` (degrees clockwise from
/// true north), each `null` when the device did not send it. This is a
/// contract: fields may be added at the end of every row, never renamed,
/// moved or taken out; a client reads them by `fields`.
struct CompactPositions {
    /// Every row's members, in order.
    static let fields = ["device", "time_ms", "lat", "lon", "speed_kmh", "course"]
    private static let head =
        "{\"fields\":[" + fields.map { "\"\($0)\"" }.joined(separator: ",") + "],\"rows\":["
    private static let eventHead = "event: positions_compact\ndata: "

    /// The event's SSE text so far: its head, then the rows (written once,
    /// straight into the buffer the clients are sent).
    private var buffer: ByteBuffer
    /// Rows appended.
    private(set) var count = 0

    /// An empty batch; `rowsHint` rows are made room for.
    init(rowsHint: Int = 0) {
        buffer = ByteBuffer()
        buffer.reserveCapacity(Self.eventHead.utf8.count + Self.head.utf8.count + 60 * rowsHint + 4)
        buffer.writeString(Self.eventHead)
        buffer.writeString(Self.head)
    }

    /// What a row carries besides its device, as held between two sends
    /// (40 bytes; `nan` for a speed or course the device did not send).
    struct Row: Sendable {
        /// Fix time, Unix ms (UTC).
        var time: Int64
        var lat: Double
        var lon: Double
        /// km/h, or `nan`.
        var speedKmh: Double
        /// Degrees clockwise from true north, or `nan`.
        var course: Double

        init(_ fix: Fix) {
            time = fix.time
            lat = fix.lat
            lon = fix.lon
            speedKmh = fix.speedKmh ?? .nan
            course = fix.course ?? .nan
        }
    }

    /// Appends `fix` as one row.
    mutating func append(_ fix: Fix) { append(device: fix.device, Row(fix)) }

    /// Appends `row` of `device`.
    mutating func append(device: String, _ row: Row) {
        func field(_ v: Double) {
            buffer.writeStaticString(",")
            buffer.writeString(v.isNaN ? "null" : JSONValue.number(v).jsonText)
        }
        buffer.writeStaticString(count > 0 ? ",[" : "[")
        count += 1
        buffer.writeString(JSONValue.quote(device))
        buffer.writeStaticString(",")
        buffer.writeString(String(row.time))
        field(row.lat)
        field(row.lon)
        field(row.speedKmh)
        field(row.course)
        buffer.writeStaticString("]")
    }

    /// The `positions_compact` event, weighing one per row.
    func event() -> LiveEvent {
        var b = buffer
        b.writeString("]}\n\n")
        return LiveEvent(kind: .compactPositions, bytes: b, weight: count)
    }
}
