/// How `Replayer` plays routes.
public struct ReplayOptions: Sendable {
    /// Playback speed: 1 = real time, 100 = a hundred times faster, 0 = as
    /// fast as the window of unacknowledged fixes allows.
    public var speedup: Double = 100
    /// Resend a fix not acknowledged after this long, ms.
    public var resendAfterMs: Int = 500
    /// Give up on a fix after this many sends.
    public var maxAttempts: Int = 20
    /// Most fixes sent and not yet acknowledged.
    public var window: Int = 1024
    /// Fixes per datagram (JSON Lines) when several are due together.
    public var perDatagram: Int = 1
    /// Each vehicle keeps at most one datagram in flight and resends it whole
    /// until it is acknowledged before sending its next fixes, as trackers do:
    /// a vehicle's fixes then reach fleetd in order even across lost replies
    /// and daemon restarts.
    public var ordered = false

    public init() {}
}
