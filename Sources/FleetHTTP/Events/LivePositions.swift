import FleetStorage

/// The live stream's positions: each device's newest accepted one, and
/// when it was last sent, so that a device's position goes out at most
/// once a second and never older than one already sent. Devices wait in
/// the order their positions came (after their last send), so when a
/// round may send fewer than are due (`RateBudget`), those waiting
/// longest go first and every device is still refreshed. The writer holds
/// each committed position here (`EventHub.publish`, under the hub's
/// lock); the hub's rounds take those due. A device takes one slot of
/// arrays (its compact row, `CompactPositions.Row`, 40 bytes, and its last
/// send) found through `DeviceSlots`, about 80–100 bytes a device in all
/// (arrays at their doubled capacity): a whole fleet's live map in about
/// 10 MB at 100 000 devices. Whole rows
/// (for clients of full records: `position` events, the `positions`
/// batch) are kept besides only while such a client is open, until sent.
struct LivePositions {
    private var slots = DeviceSlots()
    private var rows: [CompactPositions.Row] = []
    /// When each slot's position was last sent, Unix ms (0: never).
    private var sentMs: [Int64] = []
    /// Slots whose row is not sent yet, and a flag per slot for it.
    private var waiting: [Int32] = []
    private var isWaiting: [Bool] = []
    private var whole: [String: PositionRow] = [:]

    /// Devices known (held or sent).
    var count: Int { slots.count }
    /// Devices with a position not sent yet.
    var waitingCount: Int { waiting.count }

    /// The most devices kept: past it everything is forgotten (a device's
    /// next position then goes out whatever its last send).
    static let maxDevices = 1_000_000

    /// Holds `p` if accepted and not older than its device's newest (held
    /// or sent); whole as well if `keepWhole`.
    mutating func hold(_ p: PositionRow, whole keepWhole: Bool) {
        guard p.disposition == .accepted else { return }
        let device = p.fix.device
        let row = CompactPositions.Row(p.fix)
        let slot: Int
        if let known = slots.slot(of: device) {
            slot = known
            if rows[slot].time > row.time { return }
            rows[slot] = row
        } else {
            if slots.count >= Self.maxDevices { self = LivePositions() }
            slot = slots.add(device)
            rows.append(row)
            sentMs.append(0)
            isWaiting.append(false)
        }
        if keepWhole {
            whole[device] = p
        } else if !whole.isEmpty {
            whole[device] = nil
        }
        if !isWaiting[slot] {
            isWaiting[slot] = true
            waiting.append(Int32(slot))
        }
    }

    /// Forgets every device (no client takes positions any more).
    mutating func clear() { self = LivePositions() }

    /// What a round sends: the due devices' compact rows, and their whole
    /// rows where held.
    struct Due {
        var rows: [(device: String, row: CompactPositions.Row)] = []
        var whole: [PositionRow] = []
        /// Devices taken (whether or not their rows were wanted).
        var count = 0
    }

    /// Takes out the waiting devices last sent at least 1 s before `nowMs`,
    /// at most `most` of them, those waiting longest first (the rest keep
    /// their place for the next round); whole rows only if `wantWhole`,
    /// compact rows only if `wantCompact`.
    mutating func take(nowMs: Int64, most: Int = .max, wantWhole: Bool, wantCompact: Bool) -> Due {
        var due = Due()
        var still: [Int32] = []
        for (i, s) in waiting.enumerated() {
            guard due.count < most else {
                still.append(contentsOf: waiting[i...])
                break
            }
            let slot = Int(s)
            guard nowMs - sentMs[slot] >= 1000 else {
                still.append(s)
                continue
            }
            due.count += 1
            sentMs[slot] = nowMs
            isWaiting[slot] = false
            let device = slots.devices[slot]
            if wantCompact { due.rows.append((device, rows[slot])) }
            if !whole.isEmpty, let p = whole.removeValue(forKey: device), wantWhole {
                due.whole.append(p)
            }
        }
        waiting = still
        return due
    }
}

extension LivePositions.Due {
    /// The round's position events: one `position` each if `singles`, one
    /// `positions` batch if `batches` (both from whole rows only: a device
    /// held while no client took full records is left out of them until
    /// its next fix), one `positions_compact` if `compacts`.
    func events(singles: Bool, batches: Bool, compacts: Bool) -> [LiveEvent] {
        var events: [LiveEvent] = []
        if compacts, !rows.isEmpty {
            var batch = CompactPositions(rowsHint: rows.count)
            for (device, row) in rows { batch.append(device: device, row) }
            events.append(batch.event())
        }
        guard singles || batches, !whole.isEmpty else { return events }
        var batch: [String] = []
        for p in whole {
            let json = PositionRecord(fix: p.fix, disposition: 0).jsonLine
            if singles {
                events.append(
                    LiveEvent(
                        kind: .position, id: 0, device: p.fix.device, type: nil, fence: nil,
                        json: json))
            }
            if batches { batch.append(json) }
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
