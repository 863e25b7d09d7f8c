import FleetStorage
import Foundation
import Testing

/// How alerts become mails: one per alert, gathered into digests, held
/// through quiet hours (local time, daylight saving included).
@Suite struct MailPlannerTests {
    func alert(_ id: Int64, _ type: String = "geofence_enter", device: String = "t1") -> AlertRecord
    {
        AlertRecord(
            id: id, time: 0, device: device, type: type, fence: "f", lat: nil, lon: nil,
            details: nil)
    }

    var counter = 0
    func plan(
        _ rules: [MailRule], cursors: [String: Int64], gathering: [String: GatheringMail] = [:],
        alerts: [AlertRecord], readTo: Int64, now: Int64 = 1000
    ) -> MailPlan {
        var n = 0
        return MailPlanner.plan(
            rules: rules, cursors: cursors, gathering: gathering, alerts: alerts, readTo: readTo,
            nowMs: now,
            newMessageId: {
                n += 1
                return "<\(n)@t>"
            })
    }

    @Test func oneMailPerMatchingAlertAndEveryCursorMoves() {
        let each = MailRule(name: "each", to: ["a@b.c"], types: ["geofence_enter"])
        let p = plan(
            [each], cursors: ["each": 1],
            alerts: [alert(1), alert(2), alert(3, "trip_start"), alert(4)],
            readTo: 5)
        #expect(p.new.map(\.alertIds) == [[2], [4]])
        #expect(p.new.allSatisfy { $0.sendAfterMs == 1000 })
        #expect(p.cursors["each"]?.from == 1 && p.cursors["each"]?.to == 5)
        // Nothing new for the rule: no cursor to move.
        #expect(plan([each], cursors: ["each": 5], alerts: [], readTo: 5).cursors.isEmpty)
    }

    /// A rule limited to groups mails its groups' vehicles' alerts only; a
    /// vehicle in no group matches none of them.
    @Test func aRuleLimitedToGroupsMailsItsGroupsVehiclesOnly() {
        var north = MailRule(name: "north", to: ["a@b.c"])
        north.groups = ["North"]
        let groups = ["n1": "North", "s1": "South"]
        let p = MailPlanner.plan(
            rules: [north], cursors: ["north": 0], gathering: [:],
            alerts: [alert(1, device: "n1"), alert(2, device: "s1"), alert(3, device: "x")],
            readTo: 3, nowMs: 1000, newMessageId: { "<1@t>" }, groupOf: { groups[$0] })
        #expect(p.new.map(\.alertIds) == [[1]])
        #expect(p.cursors["north"]?.to == 3)
    }

    @Test func aDigestGathersIntoTheMailStillOpenOrOpensOne() {
        let digest = MailRule(name: "d", to: ["a@b.c"], digestS: 60)
        let first = plan([digest], cursors: ["d": 0], alerts: [alert(1), alert(2)], readTo: 2)
        #expect(first.new.map(\.alertIds) == [[1, 2]])
        #expect(first.new.first?.sendAfterMs == 61_000)
        var open = GatheringMail(id: 9, count: first.new[0].alertIds.count)
        let second = plan(
            [digest], cursors: ["d": 2], gathering: ["d": open], alerts: [alert(3)], readTo: 3)
        #expect(second.new.isEmpty)
        #expect(second.appended == [9: [3]])
        // A full digest opens another.
        open.count = MailRecord.maxAlerts
        let third = plan(
            [digest], cursors: ["d": 600], gathering: ["d": open], alerts: [alert(601)], readTo: 601
        )
        #expect(third.new.map(\.alertIds) == [[601]])
    }

    @Test func quietHoursHoldMailUntilTheyEndInLocalTime() throws {
        let q = try #require(QuietHours("22:00-06:30"))
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        func ms(_ s: String) -> Int64 {
            Int64(ISO8601DateFormatter().date(from: s)!.timeIntervalSince1970 * 1000)
        }
        // 23:00 CET (UTC+1): ends at 06:30 CET the next morning.
        #expect(
            q.end(containing: ms("2026-11-27T22:00:00Z"), in: berlin) == ms("2026-11-28T05:30:00Z"))
        // 05:00 CET: the same morning.
        #expect(
            q.end(containing: ms("2026-11-28T04:00:00Z"), in: berlin) == ms("2026-11-28T05:30:00Z"))
        // Noon: not quiet.
        #expect(q.end(containing: ms("2026-11-28T11:00:00Z"), in: berlin) == nil)
        // The night clocks go forward (29 March 2026, 02:00 → 03:00): 06:30 CEST is 04:30 UTC.
        #expect(
            q.end(containing: ms("2026-03-28T22:00:00Z"), in: berlin) == ms("2026-03-29T04:30:00Z"))
        // A rule without digest but with quiet hours gathers, due at their end.
        let rule = MailRule(
            name: "q", to: ["a@b.c"], quietHours: q, timeZone: "Europe/Berlin")
        #expect(rule.gathers)
        let p = plan(
            [rule], cursors: ["q": 0], alerts: [alert(1), alert(2)], readTo: 2,
            now: ms("2026-11-27T22:00:00Z"))
        #expect(p.new.map(\.alertIds) == [[1, 2]])
        #expect(p.new.first?.sendAfterMs == ms("2026-11-28T05:30:00Z"))
        // Outside its quiet hours the same rule mails each alert at once.
        let noon = plan(
            [rule], cursors: ["q": 0], alerts: [alert(1), alert(2)], readTo: 2,
            now: ms("2026-11-28T11:00:00Z"))
        #expect(noon.new.map(\.alertIds) == [[1], [2]])
        #expect(QuietHours("25:00-06:00") == nil)
        #expect(QuietHours("06:00-06:00") == nil)
        #expect(QuietHours("6:00-07:00") == nil)
    }
}
