import FleetProtocols

/// `[listen]`: where each tracker protocol of the registry
/// (`TrackerProtocol`) listens, keyed by its name: one UDP socket for each
/// protocol over UDP, an HTTP server for each over HTTP; and the receive
/// buffer asked for each UDP socket.
public struct ListenConfig: Sendable, Equatable {
    /// Addresses by protocol key (`json`, `teltonika`, `nmea`, `osmand`);
    /// a protocol absent here ("" in the file) is off. Each defaults to
    /// 127.0.0.1 on its protocol's usual port (`TrackerProtocol.defaultPort`).
    public var addresses: [String: ListenAddress] = Self.defaults
    /// SO_RCVBUF asked of the kernel for each UDP socket, bytes.
    public var receiveBufferBytes = 8 * 1024 * 1024

    public init() {}

    /// Every protocol that is on by default (`TrackerProtocol.onByDefault`:
    /// all but the TCP doors) on 127.0.0.1 at its usual port.
    public static var defaults: [String: ListenAddress] {
        var out: [String: ListenAddress] = [:]
        for p in TrackerProtocol.allCases where p.onByDefault {
            out[p.key] = ListenAddress(host: "127.0.0.1", port: p.defaultPort)
        }
        return out
    }

    /// Where `proto` listens; nil when it is off.
    public func address(of proto: TrackerProtocol) -> ListenAddress? { addresses[proto.key] }

    /// The OsmAnd door (phones: Traccar Client, OsmAnd), HTTP over TCP;
    /// nil ("" in the file) turns it off. Port 5055 by the apps' convention.
    public var osmand: ListenAddress? {
        get { addresses[TrackerProtocol.osmand.key] }
        set { addresses[TrackerProtocol.osmand.key] = newValue }
    }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        for p in TrackerProtocol.allCases {
            addresses[p.key] = try s.address(p.key, default: addresses[p.key])
        }
        receiveBufferBytes = try s.int(
            "receive_buffer_bytes", default: receiveBufferBytes, range: 4096...1 << 30)
    }
}
