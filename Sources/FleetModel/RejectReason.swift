/// Why a datagram, a record or a fix was not accepted.
///
/// The raw values are stable: they appear in logs, in `STATUS=`, in
/// `fleetctl status` and in JSON replies (`rejected[].reason`).
public enum RejectReason: String, Sendable, CaseIterable, Codable {
    /// Not well-formed JSON (RFC 8259), or a line that is not one object.
    case jsonSyntax = "json_syntax"
    /// A required field is missing.
    case missingField = "missing_field"
    /// A field has the wrong type or an unusable value.
    case badField = "bad_field"
    /// `device` is empty, too long, or has characters outside `[A-Za-z0-9._:-]`.
    case badDevice = "bad_device"
    /// `time` is not RFC 3339 with a zone nor integer milliseconds.
    case badTime = "bad_time"
    /// Latitude outside −90…90 or not finite.
    case latOutOfRange = "lat_out_of_range"
    /// Longitude outside −180…180 or not finite.
    case lonOutOfRange = "lon_out_of_range"
    /// Exactly (0, 0) presented as a valid fix.
    case nullIsland = "null_island"
    /// Fix time later than the receive time plus the allowed margin.
    case futureTime = "future_time"
    /// Fix time before 2000-01-01 (clock trouble, GPS week rollover).
    case ancientTime = "ancient_time"
    /// Speed above the configured ceiling.
    case speedCeiling = "speed_ceiling"
    /// The engine's queue is full: shed at the door, not acknowledged.
    case overload = "overload"
    /// The device is not registered and unknown devices are refused.
    case unknownDevice = "unknown_device"
    /// The device's rules (`devices.policy_file`) do not allow the
    /// sender's address.
    case sourceNotAllowed = "source_not_allowed"
    /// The device's rules (`devices.policy_file`) ask for a key: none, a
    /// wrong one, or a door that cannot carry one.
    case badKey = "bad_key"
    /// Cluster: another node holds the device's lease. Not acknowledged:
    /// the device resends, and is taken here once that node lets it go.
    case ownedElsewhere = "owned_elsewhere"
    /// The datagram is larger than any valid one.
    case oversize = "oversize"
    /// Teltonika: the datagram ends before the structure it announces.
    case truncated = "truncated"
    /// Teltonika: the length field disagrees with the datagram's size.
    case badLength = "bad_length"
    /// Teltonika: the IMEI is empty, too long, or not ASCII digits.
    case badIMEI = "bad_imei"
    /// Teltonika: a codec fleetd does not take (command codecs 12/13/14, unknown ids).
    case unsupportedCodec = "unsupported_codec"
    /// Teltonika: the two record counts differ.
    case countMismatch = "count_mismatch"
    /// Teltonika: bytes left after the last record count (two packets fused, or garbage).
    case trailingBytes = "trailing_bytes"
    /// NMEA: the checksum does not match the sentence.
    case badChecksum = "bad_checksum"
    /// NMEA: not a sentence (no `$`, no `*hh`, a fused or truncated sentence, garbage).
    case badSentence = "bad_sentence"
    /// NMEA: a position sentence whose fields cannot be read.
    case badNMEAField = "bad_nmea_field"
    /// TCP: bytes that cannot be framed (a wrong preamble or start bytes, a
    /// length out of range, a missing stop): the connection is closed.
    case badFrame = "bad_frame"
    /// TCP: a frame whose CRC (Teltonika CRC-16/IBM, GT06 CRC-ITU) does not match.
    case badCRC = "bad_crc"
    /// TCP: data before the connection's handshake or login named its device.
    case noIdentity = "no_identity"
    /// TCP: a message naming another device than the one its connection speaks for.
    case wrongDevice = "wrong_device"
    /// TCP: a connection refused at accept (too many in total or from its address).
    case connectionLimit = "connection_limit"
    /// TCP: a connection that did not name its device within the handshake timeout.
    case handshakeTimeout = "handshake_timeout"
    /// An open registry's budget of new device ids is spent for this source
    /// or in all (`[devices] new_per_source`, `new_total`): not acknowledged,
    /// the device resends and is taken in a later window (or once registered).
    case newDeviceLimit = "new_device_limit"
    /// UDP: a datagram dropped unread because its address already sent
    /// `[udp] bad_items_per_source_s` items that could not be decoded this second.
    case refusedFlood = "refused_flood"
}

/// One rejected item of a datagram, with enough context to find it.
public struct Rejection: Error, Sendable, Equatable {
    /// 0-based line (JSON Lines) or record index within the datagram.
    public var item: Int
    /// The sender's sequence number, when it could be read.
    public var seq: Int64?
    public var reason: RejectReason
    /// Human detail: the field and what was wrong with it.
    public var detail: String

    public init(item: Int, seq: Int64?, reason: RejectReason, detail: String) {
        self.item = item
        self.seq = seq
        self.reason = reason
        self.detail = detail
    }

    /// A refusal of a whole unit (a datagram, a frame): item 0, no `seq`.
    public init(_ reason: RejectReason, _ detail: String) {
        self.init(item: 0, seq: nil, reason: reason, detail: detail)
    }
}
