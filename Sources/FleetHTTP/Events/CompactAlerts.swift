import FleetJSON
import FleetStorage
import FleetTracking
import NIOCore

/// The `alerts_compact` event (`GET /api/v1/events?alerts=compact`): a
/// round's alerts as rows, in id order, under the SSE `id:` of the last,
/// so a client that reconnects with `Last-Event-ID` resumes after it.
///
/// ```json
/// {"fields":["id","time_ms","device","type","fence","lat","lon","details"],
///  "rows":[[90211,1764432000123,"truck-7","geofence_enter","depot-3",52.51,13.4,null],…],
///  "skipped":0}
/// ```
///
/// `skipped` counts the alerts between the previous batch and this one's
/// last that have no row: past `http.stream_alerts_per_s` a round keeps
/// every `device_alarm` and the newest others, and a hub fallen behind in
/// a storm keeps the same of its queue (`ShedAlerts`) (a live display shows the
/// newest few hundred anyway; every alert is stored, and
/// `GET /api/v1/alerts` or a stream without `alerts=compact` has them all).
///
/// `fields` names each row's members in order: `id` (the alert's id),
/// `time_ms` (Unix milliseconds, UTC), `device`, `type`, `fence` (or
/// `null`), `lat` and `lon` (degrees, or `null`), `details` (the members
/// the full record adds, as an object: `duration_s`, `crossed`, …, or
/// `null`). A contract, as `CompactPositions`'s: fields may be added at
/// the end of every row, never renamed, moved or taken out.
struct CompactAlerts {
    /// A batch's alerts with rows, the ids of those skipped, and the
    /// alerts before them shed while the hub was behind (`EventHub`).
    struct AlertBatch: Sendable {
        var rows: [AlertRecord]
        var skipped: [Int64]
        var shed = ShedAlerts()

        /// The part after alert `id`.
        func after(_ id: Int64) -> AlertBatch {
            AlertBatch(
                rows: rows.filter { $0.id > id }, skipped: skipped.filter { $0 > id },
                shed: shed.after(id))
        }

        /// Alerts it covers without a row.
        var skippedCount: Int { skipped.count + shed.count }
    }

    /// `covered` (in id order) split into those that keep a row when at
    /// most `most` may, and the ids of the rest (`keep`'s rule).
    static func split(_ covered: [AlertRecord], most: Int) -> (rows: [AlertRecord], left: [Int64]) {
        guard covered.count > most else { return (covered, []) }
        var left: [Int64] = []
        let rows = keep([covered], most: most) { left.append($0) }
        return (rows, left)
    }

    /// The alerts of `parts` (in id order, one after another) that keep a
    /// row when at most `most` may: every `device_alarm` (an SOS is never
    /// left out), then the newest others; `left` is given the id of each of
    /// the rest, in order. The parts are not joined: the alerts are read
    /// twice and only those kept copied (the writer sheds the hub's queue
    /// so while a storm lasts: `EventHub`).
    static func keep(
        _ parts: [[AlertRecord]], most: Int, left: (Int64) -> Void
    ) -> [AlertRecord] {
        let alarm = AlertType.deviceAlarm.rawValue
        var alarms = 0
        for part in parts {
            for a in part where a.type == alarm { alarms += 1 }
        }
        // The others kept are the newest: find the first of them, so that
        // every other before it is left (none when all fit).
        var others = max(0, most - alarms)
        var cut = (part: 0, index: 0)
        search: for p in parts.indices.reversed() {
            for i in parts[p].indices.reversed() where parts[p][i].type != alarm {
                guard others > 0 else {
                    cut = (p, i + 1)
                    break search
                }
                others -= 1
            }
        }
        var kept: [AlertRecord] = []
        kept.reserveCapacity(min(most, parts.reduce(0) { $0 + $1.count }))
        for p in parts.indices {
            for i in parts[p].indices {
                let before = p < cut.part || (p == cut.part && i < cut.index)
                if before && parts[p][i].type != alarm {
                    left(parts[p][i].id)
                } else {
                    kept.append(parts[p][i])
                }
            }
        }
        return kept
    }

    /// Every row's members, in order.
    static let fields = ["id", "time_ms", "device", "type", "fence", "lat", "lon", "details"]
    private static let head =
        "{\"fields\":[" + fields.map { "\"\($0)\"" }.joined(separator: ",") + "],\"rows\":["

    /// The event of `covered` (a round's alerts, in id order), rows for at
    /// most `most` of them: every `device_alarm` (an SOS is never left
    /// out), then the newest others; the rest are counted in `skipped`.
    /// Nil for no alerts.
    static func event(_ covered: [AlertRecord], most: Int = .max, shed: ShedAlerts = ShedAlerts())
        -> LiveEvent?
    {
        let (rows, skipped) = split(covered, most: most)
        return event(
            AlertBatch(rows: rows, skipped: skipped, shed: shed),
            lastId: max(covered.last?.id ?? 0, shed.lastId))
    }

    /// The event of `batch`, under SSE id `lastId` (the last alert it
    /// covers, sent or skipped); nil if it covers none.
    static func event(_ batch: AlertBatch, lastId: Int64) -> LiveEvent? {
        let shedFirst = batch.shed.count > 0 ? batch.shed.firstId : nil
        guard
            let firstId = [batch.rows.first?.id, batch.skipped.first, shedFirst].compactMap({ $0 })
                .min()
        else { return nil }
        var b = ByteBuffer()
        b.reserveCapacity(96 + head.utf8.count + 110 * batch.rows.count)
        b.writeString("id: \(lastId)\nevent: alerts_compact\ndata: ")
        b.writeString(head)
        for (k, a) in batch.rows.enumerated() {
            append(a, first: k == 0, to: &b)
        }
        b.writeString("],\"skipped\":\(batch.skippedCount)}\n\n")
        return LiveEvent(alertBatch: batch, firstId: firstId, lastId: lastId, bytes: b)
    }

    private static func append(_ a: AlertRecord, first: Bool, to b: inout ByteBuffer) {
        func number(_ v: Double?) {
            b.writeStaticString(",")
            b.writeString(v.map { JSONValue.number($0).jsonText } ?? "null")
        }
        b.writeStaticString(first ? "[" : ",[")
        b.writeString(String(a.id))
        b.writeStaticString(",")
        b.writeString(String(a.time))
        b.writeStaticString(",")
        b.writeString(JSONValue.quote(a.device))
        b.writeStaticString(",")
        b.writeString(JSONValue.quote(a.type))
        b.writeStaticString(",")
        b.writeString(a.fence.map(JSONValue.quote) ?? "null")
        number(a.lat)
        number(a.lon)
        b.writeStaticString(",")
        // Details are an object written by fleetd (`AlertRecord.details`);
        // anything else is left out rather than passed on.
        if let d = a.details, d.utf8.count >= 2, d.utf8.first == UInt8(ascii: "{"),
            d.utf8.last == UInt8(ascii: "}")
        {
            b.writeString(d)
        } else {
            b.writeStaticString("null")
        }
        b.writeStaticString("]")
    }
}
