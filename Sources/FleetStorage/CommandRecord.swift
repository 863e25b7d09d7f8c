/// A command sent to a device over its TCP connection (the device's own
/// command text: Teltonika `getinfo`, GT06 `Relay,1#`, H02 `S20,1,1`):
/// queued in the store, sent once when the device is connected, answered
/// by the device or expired.
public struct CommandRecord: Sendable, Equatable {
    /// Increasing; 0 before it is stored.
    public var id: Int64
    /// The device id it is for.
    public var device: String
    /// What is sent, as the device's command text.
    public var text: String
    public var status: CommandStatus
    /// Who queued it (`user:NAME`, `token:NAME`, `fleetctl:UNIXUSER`).
    public var actor: String
    /// Unix ms: queued; past `expiresMs` a command not yet answered expires.
    public var queuedMs: Int64
    public var expiresMs: Int64
    public var sentMs: Int64?
    public var answeredMs: Int64?
    /// The device's answer, as text (or why it failed).
    public var response: String?

    public init(
        id: Int64 = 0, device: String, text: String, status: CommandStatus = .queued,
        actor: String, queuedMs: Int64, expiresMs: Int64, sentMs: Int64? = nil,
        answeredMs: Int64? = nil, response: String? = nil
    ) {
        self.id = id
        self.device = device
        self.text = text
        self.status = status
        self.actor = actor
        self.queuedMs = queuedMs
        self.expiresMs = expiresMs
        self.sentMs = sentMs
        self.answeredMs = answeredMs
        self.response = response
    }
}

/// Where a command stands. Raw values are stored and shown (API, `fleetctl`).
public enum CommandStatus: String, Sendable, CaseIterable, Codable {
    /// Stored, waiting for the device's connection.
    case queued
    /// Written on the device's connection, waiting for its answer.
    case sent
    /// The device answered (`response`).
    case answered
    /// Not answered before `expiresMs`.
    case expired
    /// Could not be sent (`response` says why).
    case failed
}

/// A command's JSON (`GET /api/v1/devices/{id}/commands`, `fleetctl
/// commands list --json`; add fields, never rename): `id`, `device`,
/// `text`, `status`, `by`, `queued`, `expires`, `sent`, `answered` (RFC
/// 3339 UTC or null), `response`.
extension CommandRecord: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, device, text, status, by, queued, expires, sent, answered, response
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(device, forKey: .device)
        try c.encode(text, forKey: .text)
        try c.encode(status.rawValue, forKey: .status)
        try c.encode(actor, forKey: .by)
        try c.encode(RecordCoding.time(queuedMs), forKey: .queued)
        try c.encode(RecordCoding.time(expiresMs), forKey: .expires)
        try c.encode(sentMs.map(RecordCoding.time), forKey: .sent)
        try c.encode(answeredMs.map(RecordCoding.time), forKey: .answered)
        try c.encode(response, forKey: .response)
    }
}
