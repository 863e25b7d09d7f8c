/// `[listen]`: where each tracker protocol listens (one UDP socket each,
/// keyed as in `WireFormats`), and the receive buffer asked for each.
public struct ListenConfig: Sendable, Equatable {
    /// Addresses by protocol key (`json`, `teltonika`, `nmea`); a protocol
    /// absent here is off.
    public var addresses: [String: ListenAddress] = WireFormats.defaultListen
    /// The OsmAnd door (phones: Traccar Client, OsmAnd), HTTP over TCP;
    /// nil ("" in the file) turns it off. Port 5055 by the apps' convention.
    public var osmand: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 5055)
    /// SO_RCVBUF asked of the kernel for each UDP socket, bytes.
    public var receiveBufferBytes = 8 * 1024 * 1024

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        for format in WireFormats.all {
            addresses[format.key] = try s.address(format.key, default: addresses[format.key])
        }
        osmand = try s.address("osmand", default: osmand)
        receiveBufferBytes = try s.int(
            "receive_buffer_bytes", default: receiveBufferBytes, range: 4096...1 << 30)
    }
}
