import FleetStorage

/// Positions waiting for the live stream: each device's newest accepted
/// one, kept whole when some client takes full records (`position`
/// events, the `positions` batch), else only what `positions_compact`
/// carries (`CompactPositions.Row`: 40 bytes instead of a whole row's
/// ~170, for a whole fleet held between two sends). A device's newest
/// wins by fix time, in either form. The hub keeps one between its rounds
/// and the writer one while the hub is behind (`EventHub`'s folding).
struct HeldPositions {
    private var whole: [String: PositionRow] = [:]
    private var compact: [String: CompactPositions.Row] = [:]

    /// Devices held.
    var count: Int { whole.count + compact.count }
    var isEmpty: Bool { whole.isEmpty && compact.isEmpty }

    /// Holds `p` if accepted and not older than what its device has held:
    /// whole if `whole`, else compact.
    mutating func hold(_ p: PositionRow, whole keepWhole: Bool) {
        guard p.disposition == .accepted else { return }
        let device = p.fix.device
        if !whole.isEmpty, let h = whole[device] {
            if h.fix.time > p.fix.time { return }
            if !keepWhole { whole[device] = nil }
        }
        if !compact.isEmpty, let h = compact[device] {
            if h.time > p.fix.time { return }
            if keepWhole { compact[device] = nil }
        }
        if keepWhole {
            whole[device] = p
        } else {
            compact[device] = CompactPositions.Row(p.fix)
        }
    }

    /// Holds `row` of `device` if not older than what the device has held.
    mutating func hold(device: String, _ row: CompactPositions.Row) {
        if !whole.isEmpty, let h = whole[device] {
            if h.fix.time > row.time { return }
            whole[device] = nil
        }
        if let h = compact[device], h.time > row.time { return }
        compact[device] = row
    }

    /// Holds everything `other` holds, each device's newest kept.
    mutating func hold(_ other: HeldPositions) {
        for p in other.whole.values { hold(p, whole: true) }
        for (device, row) in other.compact { hold(device: device, row) }
    }

    /// Takes out the devices `due` says may be sent, as the stream's
    /// position events: one `position` each if `singles`, one `positions`
    /// batch if `batches` (both from whole rows only: a device held
    /// compact, while no client took full records, is left out of them
    /// and its next fix comes whole), one `positions_compact` if `compacts`.
    mutating func take(
        singles: Bool, batches: Bool, compacts: Bool, due: (String) -> Bool
    ) -> [LiveEvent] {
        var events: [LiveEvent] = []
        var batch: [String] = []
        var rows = CompactPositions()
        // Taken out after each loop: removing while iterating would copy the map.
        var taken: [String] = []
        for (device, p) in whole where due(device) {
            taken.append(device)
            if compacts { rows.append(device: device, CompactPositions.Row(p.fix)) }
            guard singles || batches else { continue }
            let json = PositionRecord(fix: p.fix, disposition: 0).jsonLine
            if singles {
                events.append(
                    LiveEvent(
                        kind: .position, id: 0, device: device, type: nil, fence: nil, json: json))
            }
            if batches { batch.append(json) }
        }
        for device in taken { whole[device] = nil }
        taken.removeAll(keepingCapacity: true)
        for (device, row) in compact where due(device) {
            taken.append(device)
            if compacts { rows.append(device: device, row) }
        }
        for device in taken { compact[device] = nil }
        if rows.count > 0 {
            events.append(
                LiveEvent(
                    kind: .compactPositions, id: 0, device: "", type: nil, fence: nil,
                    json: rows.json, weight: rows.count))
        }
        if !batch.isEmpty {
            // The round's positions as one event, for whole-fleet clients.
            events.append(
                LiveEvent(
                    kind: .positions, id: 0, device: "", type: nil, fence: nil,
                    json: "[" + batch.joined(separator: ",") + "]", weight: batch.count))
        }
        return events
    }
}
