/// One mail of the outbox: the alerts it tells of, its `Message-ID` (fixed
/// when the row is made, before the first attempt, so a repeat after a
/// crash is recognisably the same mail) and how delivery went.
public struct MailRecord: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Waiting for its time, or retried after a transient failure.
        case pending
        /// The server took it (250 after DATA).
        case sent
        /// Refused for good (5xx), or given up after `MailRecord.maxAttempts`.
        case refused
    }

    public var id: Int64
    /// The rule (`MailRule.name`).
    public var rule: String
    /// `<…@…>` as written in the header.
    public var messageId: String
    /// Ids of the alerts it tells of, in order.
    public var alertIds: [Int64]
    public var createdMs: Int64
    /// Not sent before this (the end of a digest period or of quiet hours).
    public var sendAfterMs: Int64
    /// The next attempt not before this (backoff, or a claim's lease).
    public var nextMs: Int64
    public var attempts: Int
    public var status: Status
    /// The last failure (or, once sent, recipients the server refused).
    public var lastError: String?
    /// When it was sent or refused.
    public var doneMs: Int64?
    /// A scheduled report's mail: the report (`ReportRule.name`) and its
    /// period `[from, to)`; nil for a mail about alerts.
    public var report: String?
    public var periodFromMs: Int64?
    public var periodToMs: Int64?

    /// Alerts one digest mail lists at most; more open another mail.
    public static let maxAlerts = 500
    /// Attempts before a mail that keeps failing transiently is given up.
    public static let maxAttempts = 20

    public init(
        id: Int64, rule: String, messageId: String, alertIds: [Int64], createdMs: Int64,
        sendAfterMs: Int64, nextMs: Int64, attempts: Int = 0, status: Status = .pending,
        lastError: String? = nil, doneMs: Int64? = nil, report: String? = nil,
        periodFromMs: Int64? = nil, periodToMs: Int64? = nil
    ) {
        self.report = report
        self.periodFromMs = periodFromMs
        self.periodToMs = periodToMs
        self.id = id
        self.rule = rule
        self.messageId = messageId
        self.alertIds = alertIds
        self.createdMs = createdMs
        self.sendAfterMs = sendAfterMs
        self.nextMs = nextMs
        self.attempts = attempts
        self.status = status
        self.lastError = lastError
        self.doneMs = doneMs
    }

    /// The ids as stored (`1,2,3`).
    public var alertIdsText: String { alertIds.map(String.init).joined(separator: ",") }

    /// Parses the stored form of `alertIds`.
    public static func alertIds(_ text: String) -> [Int64] {
        text.split(separator: ",").compactMap { Int64($0) }
    }
}

/// A mail still gathering alerts, as the planner needs it.
public struct GatheringMail: Sendable, Equatable {
    public var id: Int64
    /// Alerts it holds.
    public var count: Int

    public init(id: Int64, count: Int) {
        self.id = id
        self.count = count
    }
}

/// What one attempt at a mail came to.
public enum MailOutcome: Sendable, Equatable {
    /// Taken by the server; `refused` lists recipients it would not take.
    case sent(refused: String?)
    /// 4xx, a lost connection or a timeout: tried again at `retryAtMs`.
    case failed(error: String, retryAtMs: Int64)
    /// 5xx: not tried again.
    case refused(error: String)
}

/// What one pass over new alerts formed, stored in one transaction with
/// the rules' new cursors.
public struct MailPlan: Sendable, Equatable {
    /// New mails (their `id` ignored; the store numbers them).
    public var new: [MailRecord] = []
    /// Alert ids added to mails still gathering, by mail id.
    public var appended: [Int64: [Int64]] = [:]
    /// Each rule's cursor: from (as read) and to (the last alert id looked at).
    public var cursors: [String: (from: Int64, to: Int64)] = [:]

    public init() {}

    public static func == (a: MailPlan, b: MailPlan) -> Bool {
        a.new == b.new && a.appended == b.appended
            && a.cursors.mapValues { [$0.from, $0.to] } == b.cursors.mapValues { [$0.from, $0.to] }
    }
}

/// The mail outbox on the writer: rules' cursors over the alerts, mails
/// formed from them, claimed and recorded. The alerts table is the durable
/// first half of the outbox: an alert committed is mailed once the next
/// pass reads past it, however the process ended.
public protocol MailOutboxStore: AnyObject {
    /// Each named rule's cursor (the last alert id it has looked at); a rule
    /// not stored yet is stored at `startAt` (alerts before it are not mailed).
    func mailCursors(rules: [String], startAt: Int64) throws(StoreError) -> [String: Int64]

    /// Each of `rules`' newest mail still gathering alerts (pending, never
    /// tried, not due before `nowMs`): its id and how many alerts it holds.
    func gatheringMails(rules: [String], nowMs: Int64) throws(StoreError) -> [String: GatheringMail]

    /// Stores `plan` if every cursor is still where it was read (false, and
    /// nothing stored, when another writer moved one).
    func queueMails(_ plan: MailPlan) throws(StoreError) -> Bool

    /// Up to `limit` due mails (pending, `sendAfterMs` and `nextMs` passed),
    /// each claimed: its attempts counted and `nextMs` set `leaseMs` ahead,
    /// so that a process killed mid-delivery leaves it to be tried again.
    func claimMails(nowMs: Int64, leaseMs: Int64, limit: Int) throws(StoreError) -> [MailRecord]

    /// Records `outcome` of the attempt at mail `id`.
    func recordMail(_ id: Int64, _ outcome: MailOutcome, nowMs: Int64) throws(StoreError)

    /// Deletes up to `maxRows` sent or refused mails done before `cutoffMs`.
    func pruneMails(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int
}
