/// `[tcp]`: the limits of the TCP door (`[listen]` `teltonika_tcp`,
/// `gt06`, `h02`), which faces whoever can reach its ports. Every limit
/// a stranger can push against is here, with its default; what each one
/// costs an attacker and a device is in `docs/protocols.md`, "The TCP door".
public struct TCPConfig: Sendable, Equatable {
    /// A connection that sends nothing for this long is closed, seconds
    /// (also what reaps half-open connections). Longer than Teltonika's
    /// 300 s open-link default and GT06's 3-minute heartbeat.
    public var idleTimeoutS = 600
    /// A connection that has not named its device (handshake, login, first
    /// message) this long after it opened is closed, seconds.
    public var handshakeTimeoutS = 30
    /// A unit of fixes not committed within this long closes its
    /// connection unanswered (the device resends on its next one), seconds.
    public var commitTimeoutS = 20
    /// The largest frame or line taken, bytes: a connection that sends
    /// more without a whole unit is closed (`oversize`). Also the most a
    /// connection buffers.
    public var maxFrameBytes = 16384
    /// Connections open at once across the TCP doors; beyond it a new one
    /// is closed at accept (`connection_limit`). Raise `LimitNOFILE` with it.
    public var maxConnections = 20000
    /// Connections open at once from one IP address (devices behind one
    /// carrier NAT share an address).
    public var maxConnectionsPerAddress = 256
    /// GT06 devices that send local time without saying so in their login:
    /// their zone, minutes east of UTC (−720…840). Logins that carry a zone win.
    public var gt06UTCOffsetMinutes = 0
    /// A command not answered this long after it was queued expires
    /// (whether or not it was sent), seconds. A day by default: devices
    /// that connect only when they have records to send still get it.
    public var commandExpiryS = 86_400

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        idleTimeoutS = try s.int("idle_timeout_s", default: idleTimeoutS, range: 10...86_400)
        handshakeTimeoutS = try s.int(
            "handshake_timeout_s", default: handshakeTimeoutS, range: 1...600)
        commitTimeoutS = try s.int("commit_timeout_s", default: commitTimeoutS, range: 1...300)
        maxFrameBytes = try s.int("max_frame_bytes", default: maxFrameBytes, range: 512...1 << 20)
        maxConnections = try s.int(
            "max_connections", default: maxConnections, range: 1...1_000_000)
        maxConnectionsPerAddress = try s.int(
            "max_connections_per_address", default: maxConnectionsPerAddress,
            range: 1...1_000_000)
        gt06UTCOffsetMinutes = try s.int(
            "gt06_utc_offset_minutes", default: gt06UTCOffsetMinutes, range: -720...840)
        commandExpiryS = try s.int(
            "command_expiry_s", default: commandExpiryS, range: 10...30 * 86_400)
    }
}
