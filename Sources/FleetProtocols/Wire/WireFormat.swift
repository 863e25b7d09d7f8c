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
public protocol WireFormat: FixFormat {
    /// Decodes one datagram received from `sender` at `nowMs` (Unix ms).
    /// `sender` is called only by formats that identify devices by address.
    func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding

    /// Fixes a format held back (NMEA: an RMC waiting for its GGA) that are
    /// due by `nowMs`. Called about every 0.5 s; most formats hold nothing.
    func flush(nowMs: Int64) -> [WireDecoding]
}

extension WireFormat {
    public func flush(nowMs: Int64) -> [WireDecoding] { [] }
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
