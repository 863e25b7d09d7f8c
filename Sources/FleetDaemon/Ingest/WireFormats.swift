import FleetProtocols

/// The tracker protocols fleetd listens for, one UDP socket each: the
/// `[listen]` key, the address used when the config names none, and how
/// the socket's `WireFormat` is made. Adding a protocol is one line here
/// (plus its decoder in FleetProtocols and its encoder in the simulator).
public enum WireFormats {
    public struct Entry: Sendable {
        /// The `[listen]` key, equal to the format's `name`.
        public let key: String
        /// Where it listens by default; nil: off unless configured.
        public let defaultAddress: ListenAddress?
        /// A new format for one socket (formats keep per-sender state).
        let make: @Sendable (DaemonConfig) -> any WireFormat
    }

    public static let all: [Entry] = [
        Entry(key: "json", defaultAddress: ListenAddress(host: "127.0.0.1", port: 5055)) { _ in
            JSONWireFormat()
        },
        Entry(key: "teltonika", defaultAddress: ListenAddress(host: "127.0.0.1", port: 5027)) {
            _ in TeltonikaWireFormat()
        },
        Entry(key: "nmea", defaultAddress: ListenAddress(host: "127.0.0.1", port: 10110)) {
            NMEAWireFormat(devices: $0.nmea.devices)
        },
    ]

    /// The default `[listen]` addresses, by key.
    public static var defaultListen: [String: ListenAddress] {
        var out: [String: ListenAddress] = [:]
        for e in all { out[e.key] = e.defaultAddress }
        return out
    }
}
