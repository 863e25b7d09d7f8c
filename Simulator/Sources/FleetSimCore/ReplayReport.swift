/// What a replay did, per device.
public struct ReplayReport: Sendable {
    public struct Device: Sendable {
        public var device: String
        public var points = 0
        /// Fixes sent at least once.
        public var sent = 0
        /// Fixes the daemon acknowledged (stored).
        public var acked = 0
        /// Resends after a missing acknowledgement.
        public var resent = 0
        /// Fixes the daemon refused, by reason (not resent).
        public var rejected: [String: Int] = [:]
        /// Fixes given up on after the last attempt.
        public var unacked = 0
    }

    public var devices: [Device]
    public var elapsedSeconds: Double

    public var sent: Int { devices.reduce(0) { $0 + $1.sent } }
    public var acked: Int { devices.reduce(0) { $0 + $1.acked } }
    public var resent: Int { devices.reduce(0) { $0 + $1.resent } }
    public var unacked: Int { devices.reduce(0) { $0 + $1.unacked } }
    public var rejected: Int { devices.reduce(0) { $0 + $1.rejected.values.reduce(0, +) } }
}
