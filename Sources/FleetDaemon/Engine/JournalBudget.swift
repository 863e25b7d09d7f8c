import FleetModel
import FleetStorage
import FleetSystemd
import FleetTracking

/// Which committed alerts the journal gets one entry each
/// (`alerts.journal_per_s`): up to `perS` a second (a `RateBudget`, saved
/// up for one second), in commit order, and every `device_alarm` whatever
/// the rate. The rest are counted into a `JournalSummary`, written as one
/// entry once it is a second old, so a storm costs the journal a summary a
/// second instead of an entry per alert; journald would drop most of them
/// anyway (its `RateLimitBurst=`, 10 000 entries in 30 s by default:
/// https://www.freedesktop.org/software/systemd/man/latest/journald.conf.html).
///
/// Pure: time is passed in (Unix ms).
struct JournalBudget {
    private var budget: RateBudget
    /// The alerts counted and not yet written as a summary.
    private(set) var pending: JournalSummary?

    init(perS: Int) { budget = RateBudget(perS: perS) }

    /// The alerts of a commit at `nowMs` to write one entry each; the rest
    /// are added to `pending`.
    mutating func take(_ alerts: [AlertRecord], nowMs: Int64) -> [AlertRecord] {
        let room = budget.available(nowMs: nowMs)
        if alerts.count <= room {
            budget.spend(alerts.count)
            return alerts
        }
        let alarm = AlertType.deviceAlarm.rawValue
        var kept: [AlertRecord] = []
        kept.reserveCapacity(room)
        var summary = pending ?? JournalSummary(sinceMs: nowMs)
        for a in alerts {
            if kept.count < room || a.type == alarm {
                kept.append(a)
            } else {
                summary.count(a)
            }
        }
        budget.spend(kept.count)
        pending = summary
        return kept
    }

    /// The pending summary once it is a second old at `nowMs` (it is then
    /// no longer pending); nil otherwise.
    mutating func due(nowMs: Int64) -> JournalSummary? {
        guard let p = pending, nowMs - p.sinceMs >= 1000 else { return nil }
        pending = nil
        return p
    }

    /// The pending summary whatever its age (its second is over, or fleetd
    /// stops); nil when none.
    mutating func takePending() -> JournalSummary? {
        defer { pending = nil }
        return pending
    }
}

/// Alerts left out of the journal one by one (`JournalBudget`), written as
/// one entry: how many, of which types, between which ids.
struct JournalSummary: Equatable {
    /// When the first of them was counted, Unix ms.
    let sinceMs: Int64
    private(set) var total = 0
    private(set) var firstId: Int64 = 0
    private(set) var lastId: Int64 = 0
    /// Counts by alert type, in the order the types first came.
    private(set) var byType: [TypeCount] = []

    struct TypeCount: Equatable {
        let type: String
        var count: Int
    }

    init(sinceMs: Int64) { self.sinceMs = sinceMs }

    mutating func count(_ a: AlertRecord) {
        if total == 0 { firstId = a.id }
        total += 1
        lastId = a.id
        if let i = byType.firstIndex(where: { $0.type == a.type }) {
            byType[i].count += 1
        } else {
            byType.append(TypeCount(type: a.type, count: 1))
        }
    }

    /// The journal entry: `MESSAGE`, `PRIORITY` 5 (notice),
    /// `SYSLOG_IDENTIFIER`, `FLEETD_ALERTS_LEFT_OUT`,
    /// `FLEETD_ALERT_FIRST_ID`, `FLEETD_ALERT_LAST_ID`.
    func fields(perS: Int) -> [(String, String)] {
        let types = byType.map { "\($0.count) \($0.type)" }.joined(separator: ", ")
        return [
            (
                "MESSAGE",
                "\(total) alerts not written here one by one (more than \(perS) a second): "
                    + "\(types); ids \(firstId) to \(lastId); all are stored (fleetctl alerts)"
            ),
            ("PRIORITY", String(Journal.Priority.notice.rawValue)),
            ("SYSLOG_IDENTIFIER", "fleetd"),
            ("FLEETD_ALERTS_LEFT_OUT", String(total)),
            ("FLEETD_ALERT_FIRST_ID", String(firstId)),
            ("FLEETD_ALERT_LAST_ID", String(lastId)),
        ]
    }
}
