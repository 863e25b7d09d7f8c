import FleetModel

/// One tracker protocol as fleetd speaks it: bytes in, fixes out, and the
/// reply the sender is owed once those fixes are committed.
///
/// One conformance per protocol (`JSONWireFormat`, `TeltonikaWireFormat`,
/// `NMEAWireFormat`); the daemon's listeners, door and writer know only this
/// interface. An instance belongs to one listening socket and is used by
/// that socket's thread alone, so a format may keep per-sender state (NMEA
/// pairs sentences per sender) without locks. Pure: no sockets, clocks or
/// databases; time comes in as `nowMs`.
public protocol WireFormat: AnyObject {
    /// The protocol this format speaks (its entry in the registry).
    var trackerProtocol: TrackerProtocol { get }

    /// Decodes one datagram received from `sender` at `nowMs` (Unix ms).
    /// `sender` is called only by formats that identify devices by address.
    func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding

    /// Fixes a format held back (NMEA: an RMC waiting for its GGA) that are
    /// due by `nowMs`. Called about every 0.5 s; most formats hold nothing.
    func flush(nowMs: Int64) -> [WireDecoding]

    /// The reply owed when some of `decoding`'s fixes were refused after
    /// decoding (screening, an unknown device): `refused` pairs a fix's
    /// index in `decoding.fixes` with the reason. Nil: send nothing, so the
    /// sender resends later (Teltonika's answer to an unknown device).
    func reply(to decoding: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?

    /// Where fix `index` of `decoding` stood in its datagram, for log lines
    /// (`line 3`, `IMEI 356307042441013 record 2`).
    func locate(fix index: Int, in decoding: WireDecoding) -> String

    /// Where item `index` (0-based, as in `Rejection.item`) stood, for log
    /// lines: `line 3` (JSON Lines), `item 3` (1-based).
    func locate(item index: Int) -> String
}

extension WireFormat {
    /// The protocol's name: its `[listen]` key, its label in metrics, logs
    /// and `fleetctl status` (`json`, `teltonika`, `nmea`, `osmand`).
    public var name: String { trackerProtocol.rawValue }

    public func flush(nowMs: Int64) -> [WireDecoding] { [] }

    public func locate(item index: Int) -> String { "item \(index + 1)" }
}

/// A datagram's sender as a format may need it: NMEA names a device by its
/// sender's address when the datagram carries no `$PFLID`.
public struct WireSender: Sendable, Equatable {
    /// `ip:port` (`[ip]:port` for IPv6).
    public var text: String
    /// The address alone.
    public var ip: String

    public init(text: String, ip: String) {
        self.text = text
        self.ip = ip
    }
}
