/// `[udp]`: the limits of the UDP doors (JSON, Teltonika, NMEA), which
/// face whoever can send a datagram in any address's name.
public struct UDPConfig: Sendable, Equatable {
    /// Items (lines, records, whole datagrams) from one address that may
    /// fail to decode in a second; once past it, that address's further
    /// datagrams are dropped unread until the second ends, counted as
    /// `refused_flood`, so that a flood of broken datagrams (each of which
    /// would be parsed, counted and answered) costs a look-up each. Only
    /// what cannot be decoded counts, never a fix refused by the registry
    /// or the screen: devices behind one carrier address are not dropped
    /// for being unregistered. A device resends what was dropped. 0 = no
    /// limit (0–10 000 000).
    public var badItemsPerSourceS = 10_000

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        badItemsPerSourceS = try s.int(
            "bad_items_per_source_s", default: badItemsPerSourceS, range: 0...10_000_000)
    }
}
