import FleetModel

/// One TCP connection of a tracker protocol as fleetd speaks it: bytes in,
/// one unit at a time, and what the device is owed for each. Pure: no
/// sockets or clocks (time comes in as `nowMs`; whether a device is
/// registered as `known`); one instance per connection, used by that
/// connection alone, so it keeps the connection's state (the identity its
/// handshake or login gave, a time-zone offset, the last status bits).
///
/// The transport (`StreamConnection` in the daemon) holds the bytes
/// received and not yet consumed, calls `next` until it answers
/// `.needMore`, and acts on each unit in order: a unit of fixes is screened
/// and committed before its reply is written and before the next unit is
/// read, so a device is answered in the order it sent and only for what is
/// stored.
public protocol StreamSession: FixFormat {
    /// The device this connection speaks for, once its handshake or login
    /// (or, for protocols that name the device in every message, its first
    /// message) was accepted; nil before.
    var device: String? { get }

    /// Reads the next unit at the start of `bytes` (everything received and
    /// not yet consumed). Never traps on any input; `bytes` longer than
    /// `maxFrame` without a whole unit closes the connection (`oversize`).
    func next(_ bytes: UnsafeBufferPointer<UInt8>, nowMs: Int64, known: (String) -> Bool)
        -> StreamStep

    /// The bytes that send `text` (the device's own command text) on this
    /// connection at `nowMs` (Teltonika Codec 12, GT06 `0x80`, an H02
    /// line); nil before the device is known.
    func command(_ text: String, nowMs: Int64) -> [UInt8]?
}

/// What a `StreamSession` made of the bytes at the start of its buffer.
public enum StreamStep: Sendable, Equatable {
    /// No whole unit yet: read more.
    case needMore
    /// One unit of `consumed` bytes.
    case unit(consumed: Int, StreamUnit)
    /// The connection cannot go on (framing lost, a refused handshake, a
    /// message for another device): `answer` (maybe empty) is written, then
    /// the connection is closed; the rejection is counted and logged.
    case close(Rejection, answer: [UInt8] = [])
}

/// One unit a connection received.
public enum StreamUnit: Sendable, Equatable {
    /// Answered at once with these bytes (empty: nothing), nothing stored:
    /// an accepted handshake or login, a heartbeat, a keep-alive byte.
    case answer([UInt8])
    /// Fixes to screen and commit; `WireDecoding.reply` is written once
    /// they are committed (nil: nothing).
    case fixes(WireDecoding)
    /// A unit refused whole (a bad CRC, counts that disagree): counted, not
    /// answered, so the device sends it again; the connection goes on.
    case refused(Rejection)
    /// The device's answer to a command (Teltonika Codec 12 type 6, GT06
    /// `0x15`, H02 `V4`), as text.
    case commandAnswer(String)
}

/// What the door needs of a protocol to screen what it decoded: its name,
/// the reply owed when some fixes are refused after decoding, and where a
/// fix stood (for log lines). `WireFormat` (datagrams, requests) and
/// `StreamSession` (TCP connections) both are one.
public protocol FixFormat: AnyObject {
    /// The protocol this format speaks (its entry in the registry).
    var trackerProtocol: TrackerProtocol { get }

    /// The reply owed when some of `decoding`'s fixes were refused after
    /// decoding (screening, an unknown device): `refused` pairs a fix's
    /// index in `decoding.fixes` with the reason. Nil: send nothing, so the
    /// sender resends later (Teltonika's answer to an unknown device).
    func reply(to decoding: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?

    /// Where fix `index` of `decoding` stood in its unit, for log lines
    /// (`line 3`, `IMEI 356307042441013 record 2`).
    func locate(fix index: Int, in decoding: WireDecoding) -> String

    /// Where item `index` (0-based, as in `Rejection.item`) stood, for log
    /// lines: `line 3` (JSON Lines), `item 3` (1-based).
    func locate(item index: Int) -> String
}

extension StreamSession {
    /// Every TCP protocol answers a unit whose fixes were partly refused
    /// as it would whole (sending it again would not make them valid),
    /// except when its device is not registered: then nothing, so the
    /// device keeps it until it is.
    public func reply(to d: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?
    {
        refused.contains { $0.reason == .unknownDevice } ? nil : d.reply
    }

    /// The connection cannot go on: `reason` and `detail`, `answer` written first.
    func close(_ reason: RejectReason, _ detail: String, answer: [UInt8] = []) -> StreamStep {
        .close(Rejection(reason, detail), answer: answer)
    }
}

extension FixFormat {
    /// The protocol's name: its `[listen]` key, its label in metrics, logs
    /// and `fleetctl status` (`json`, `teltonika`, `gt06`, …).
    public var name: String { trackerProtocol.rawValue }

    public func locate(item index: Int) -> String { "item \(index + 1)" }
}
