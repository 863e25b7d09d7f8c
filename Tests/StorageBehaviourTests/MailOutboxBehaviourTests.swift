import FleetStorage
import FleetTestSupport
import FleetTracking
import Foundation
import Testing

/// The mail outbox, the same on every backend: rules' cursors start where
/// they are first asked for and move only from where they were read; mails
/// gather, are claimed with a lease, and keep what each attempt came to.
@Suite(.serialized, .offPool) struct MailOutboxBehaviourTests {
    func mail(_ rule: String, _ ids: [Int64], id: String, sendAfter: Int64 = 0) -> MailRecord {
        MailRecord(
            id: 0, rule: rule, messageId: "<\(id)@fleet.test>", alertIds: ids, createdMs: 1000,
            sendAfterMs: sendAfter, nextMs: 0)
    }

    @Test(arguments: BackendKind.allCases) func cursorsMoveOnlyFromWhereTheyWereRead(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        #expect(try w.mailCursors(rules: ["a", "b"], startAt: 7) == ["a": 7, "b": 7])
        // Asked again later: a stored rule keeps its cursor.
        #expect(try w.mailCursors(rules: ["a", "c"], startAt: 9) == ["a": 7, "c": 9])
        var plan = MailPlan()
        plan.cursors["a"] = (from: 7, to: 12)
        plan.new = [mail("a", [8, 9], id: "one")]
        #expect(try w.queueMails(plan))
        #expect(try w.mailCursors(rules: ["a"], startAt: 0) == ["a": 12])
        // The same plan again (another writer got there first): nothing stored.
        plan.new = [mail("a", [10], id: "two")]
        #expect(try w.queueMails(plan) == false)
        let r = try db.reader()
        #expect(try r.mails(statuses: [], limit: 10).map(\.messageId) == ["<one@fleet.test>"])
    }

    @Test(arguments: BackendKind.allCases) func mailsGatherAreClaimedAndKeepTheirOutcome(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        _ = try w.mailCursors(rules: ["now", "later"], startAt: 0)
        var plan = MailPlan()
        plan.cursors = ["now": (from: 0, to: 3), "later": (from: 0, to: 3)]
        plan.new = [
            mail("now", [1], id: "n1"), mail("now", [2], id: "n2"),
            mail("later", [1, 2], id: "l1", sendAfter: 60_000),
        ]
        #expect(try w.queueMails(plan))
        // Still gathering: the digest, not yet due and never tried.
        let gathering = try w.gatheringMails(rules: ["now", "later"], nowMs: 5000)
        #expect(gathering.keys.sorted() == ["later"])
        let digest = try #require(gathering["later"])
        #expect(digest.count == 2)
        var more = MailPlan()
        more.cursors = ["later": (from: 3, to: 4)]
        more.appended = [digest.id: [3]]
        #expect(try w.mailCursors(rules: ["later"], startAt: 0) == ["later": 3])
        #expect(try w.queueMails(more))
        // Claimed: due ones only, each once while its lease runs.
        let claimed = try w.claimMails(nowMs: 5000, leaseMs: 10_000, limit: 10)
        #expect(claimed.map(\.messageId) == ["<n1@fleet.test>", "<n2@fleet.test>"])
        #expect(claimed.allSatisfy { $0.attempts == 1 })
        #expect(try w.claimMails(nowMs: 6000, leaseMs: 10_000, limit: 10).isEmpty)
        // Outcomes: one sent, one failed (tried again after the retry time).
        try w.recordMail(claimed[0].id, .sent(refused: "refused: x@y: 550"), nowMs: 6000)
        try w.recordMail(claimed[1].id, .failed(error: "451 later", retryAtMs: 8000), nowMs: 6000)
        #expect(try w.claimMails(nowMs: 7000, leaseMs: 10_000, limit: 10).isEmpty)
        let again = try w.claimMails(nowMs: 8000, leaseMs: 10_000, limit: 10)
        #expect(again.map(\.messageId) == ["<n2@fleet.test>"])
        #expect(again.first?.attempts == 2)
        try w.recordMail(again[0].id, .refused(error: "554 no"), nowMs: 8500)
        // The digest with its appended alert, when due.
        let due = try w.claimMails(nowMs: 60_000, leaseMs: 10_000, limit: 10)
        #expect(due.map(\.alertIds) == [[1, 2, 3]])
        let r = try db.reader()
        let all = try r.mails(statuses: [], limit: 10)
        #expect(all.map(\.status) == [.pending, .refused, .sent])
        #expect(all.last?.lastError == "refused: x@y: 550")
        #expect(try r.mails(statuses: [.refused], limit: 10).map(\.lastError) == ["554 no"])
        // Pruned: done before the cutoff only.
        #expect(try w.pruneMails(before: 7000, maxRows: 10) == 1)
        #expect(try r.mails(statuses: [], limit: 10).count == 2)
    }
}
