import FleetProtocols

/// A fix as a simulated device records it: noisy, maybe an outlier.
public struct SimFix: Sendable, Equatable {
    /// Unix ms.
    public var time: Int64
    public var lat: Double
    public var lon: Double
    public var speedKmh: Double
    /// Direction of travel, degrees clockwise from north.
    public var courseDeg: Double
    /// The radius the device says it is accurate to, metres.
    public var accuracyM: Double
    public var ignition: Bool
    /// Where the vehicle really was (the noise-free path): never sent, kept
    /// for diagnostics such as `fleetbench accuracy --trace`.
    public var trueLat: Double = 0
    public var trueLon: Double = 0
}

/// One datagram's worth of fixes, sent when the device's clock reaches
/// `dueMs` (fix time).
public struct SimPacket: Sendable, Equatable {
    public var dueMs: Int64
    public var fixes: [SimFix]
    /// Part of a backlog sent after a coverage gap.
    public var backlog: Bool = false
    /// The network delivers it twice.
    public var duplicate: Bool = false
    /// The network delivers it after the device's next datagram.
    public var reorder: Bool = false
}

/// A simulated device: its id as fleetd sees it, its protocol and what it sends.
public struct SimDevice: Sendable {
    public var device: String
    public var proto: TrackerProtocol
    public var packets: [SimPacket]
}
