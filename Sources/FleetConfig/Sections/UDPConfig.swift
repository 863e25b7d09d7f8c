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
    /// The nice value each UDP receiving thread asks for (-20…19). A UDP socket
    /// holds only what its receive buffer holds (about 30 ms of fixes at
    /// 120 000 a second with Linux's usual 4 MiB cap); past it the kernel drops
    /// datagrams unseen. The receiving thread's work is small, but on a busy
    /// machine it waits for a core behind the engine, the writer and the
    /// replies' thread, and then the socket overflows: in fleetd's half of the
    /// shared harness at 120 000 fixes/s, 8 647 of 360 064 were dropped at nice
    /// 0 and none at -5. Below the process's own value it needs `CAP_SYS_NICE`
    /// or an `RLIMIT_NICE` that allows it (the packaged unit sets
    /// `LimitNICE=-5`); refused, the thread keeps the process's value and
    /// fleetd says so once at start. Never set above the process's value.
    public var receiverNice = -5

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        badItemsPerSourceS = try s.int(
            "bad_items_per_source_s", default: badItemsPerSourceS, range: 0...10_000_000)
        receiverNice = try s.int("receiver_nice", default: receiverNice, range: -20...19)
    }
}
