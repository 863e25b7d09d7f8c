import FleetProtocols

/// What `LoadGenerator` offers fleetd.
public struct LoadOptions: Sendable {
    /// The protocols the load generator speaks: those over UDP (JSON
    /// Lines, each line with a `seq`, acknowledged per line; Teltonika
    /// Codec 8, acknowledged per packet; NMEA 0183, `$PFLID` + RMC + GGA,
    /// never acknowledged, sent only).
    public static let protocols = TrackerProtocol.carried(by: .udp)

    /// The wire protocol of the datagrams: one of `protocols`.
    public var proto: TrackerProtocol = .teltonika
    /// Devices played; datagram k comes from device k mod `devices`.
    public var devices = 100_000
    /// Fixes per datagram (Teltonika records, JSON lines, NMEA RMC+GGA pairs).
    public var fixesPerDatagram = 1
    /// Offered datagrams per second (first sends; resends come on top).
    public var rate = 10_000.0
    /// How long to offer, seconds.
    public var seconds = 10.0
    /// A datagram not acknowledged after this long is resent, ms.
    public var resendAfterMs = 2000
    /// Sends of one datagram at most (the first included); then it counts as unacknowledged.
    public var maxSends = 3
    /// After the last first send, wait this long at most for the remaining acknowledgements, s.
    public var drainSeconds = 5.0
    /// Datagrams per sendmmsg call.
    public var batch = 64

    public init() {}
}
