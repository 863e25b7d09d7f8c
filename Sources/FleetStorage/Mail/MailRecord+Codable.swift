import FleetModel

/// A mail of the outbox as `fleetctl notifications --json` prints it:
/// times in RFC 3339 UTC; fields are added, never renamed.
extension MailRecord: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, rule, attempts, status
        case messageId = "message_id"
        case alertIds = "alert_ids"
        case created, sendAfter = "send_after", next
        case lastError = "last_error"
        case done
        case report, periodFrom = "period_from", periodTo = "period_to"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(rule, forKey: .rule)
        try c.encode(messageId, forKey: .messageId)
        try c.encode(alertIds, forKey: .alertIds)
        try c.encode(RFC3339.format(millis: createdMs), forKey: .created)
        try c.encode(RFC3339.format(millis: sendAfterMs), forKey: .sendAfter)
        try c.encode(RFC3339.format(millis: nextMs), forKey: .next)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(lastError, forKey: .lastError)
        try c.encode(doneMs.map { RFC3339.format(millis: $0) }, forKey: .done)
        if let report {
            try c.encode(report, forKey: .report)
            try c.encode(periodFromMs.map { RFC3339.format(millis: $0) }, forKey: .periodFrom)
            try c.encode(periodToMs.map { RFC3339.format(millis: $0) }, forKey: .periodTo)
        }
    }
}
