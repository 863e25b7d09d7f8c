/// Every tracker protocol fleetd speaks: the one registry that the daemon
/// (its `[listen]` keys, sockets and servers), the simulator (encoders,
/// senders, scenarios, load) and the benchmarks read.
///
/// Each place that treats protocols differently switches over this enum
/// exhaustively, with no `default:`, so a new case does not compile until
/// every one of them handles it; `ProtocolRegistryTests` checks that each
/// case has its `[listen]` key in `config/fleetd.toml` and, for the
/// transports systemd holds, its line in `systemd/fleetd.socket`.
/// Facts and sources of each protocol: `docs/protocols.md`.
public enum TrackerProtocol: String, CaseIterable, Sendable, Codable {
    /// fleetd's JSON Lines over UDP, acknowledged per line by `seq`.
    case json
    /// Teltonika AVL (Codec 8, 8 Extended, 16) over UDP, acknowledged per packet.
    case teltonika
    /// NMEA 0183 RMC + GGA over UDP; never acknowledged.
    case nmea
    /// The OsmAnd protocol over HTTP (Traccar Client, OsmAnd); answered 200 once committed.
    case osmand
    /// Teltonika AVL over TCP (the devices' default): IMEI handshake, then
    /// frames answered with their record count once committed.
    case teltonikaTCP = "teltonika_tcp"
    /// GT06 / Concox (Jimi) binary frames over TCP.
    case gt06
    /// H02 (Sinotrack, Coban) `*HQ,…#` text over TCP.
    case h02

    /// How a protocol's bytes reach fleetd.
    public enum Transport: String, Sendable {
        /// One UDP socket; a datagram is a unit of decoding and of reply.
        case udp
        /// HTTP requests on a TCP port of their own; a request is one unit.
        case http
        /// A TCP connection per device, served by fleetd's TCP door; a
        /// frame or line is one unit, answered in order on the connection.
        case tcp
    }

    /// The transport this protocol arrives by.
    public var transport: Transport {
        switch self {
        case .json, .teltonika, .nmea: .udp
        case .osmand: .http
        case .teltonikaTCP, .gt06, .h02: .tcp
        }
    }

    /// Whether its fixes can carry a device's key (`devices.policy_file`):
    /// the text formats a sender writes itself; a binary tracker's cannot.
    public var carriesDeviceKey: Bool {
        switch self {
        case .json, .osmand: true
        case .teltonika, .nmea, .teltonikaTCP, .gt06, .h02: false
        }
    }

    /// Whether fleetd listens for it when the config does not say: the
    /// UDP and HTTP doors do (on 127.0.0.1); the TCP doors are off unless
    /// their `[listen]` key is set.
    public var onByDefault: Bool { transport != .tcp }

    /// The `[listen]` key (the raw value), also its label in metrics and logs.
    public var key: String { rawValue }

    /// The port fleetd listens on when the config names none (on
    /// 127.0.0.1): the protocol's usual port. JSON (UDP) and OsmAnd (TCP)
    /// share 5055, the OsmAnd apps' port, as they use different transports.
    public var defaultPort: Int {
        switch self {
        case .json: 5055
        case .teltonika: 5027
        case .nmea: 10110  // NMEA-over-IP's registered port
        case .osmand: 5055
        case .teltonikaTCP: 5027  // the UDP door's port, over TCP
        case .gt06: 5023
        case .h02: 5013
        }
    }

    /// What the shipped config and `--help` texts say the protocol is.
    public var summary: String {
        switch self {
        case .json: "fleetd's JSON fix format over UDP"
        case .teltonika: "Teltonika Codec 8 / 8 Extended / 16 over UDP (FMB/FMC/FMM devices)"
        case .nmea: "NMEA 0183 over UDP (receivers, gpsd's gps2udp)"
        case .osmand: "the OsmAnd protocol over HTTP (phones running Traccar Client or OsmAnd)"
        case .teltonikaTCP:
            "Teltonika Codec 8 / 8 Extended / 16 over TCP (FMB/FMC/FMM devices' default)"
        case .gt06: "GT06 / Concox binary frames over TCP (GT06, GT06N, Jimi and their clones)"
        case .h02: "H02 text over TCP (Sinotrack, Coban and their clones)"
        }
    }

    /// A new `WireFormat` for one socket or server of a protocol over
    /// UDP or HTTP (formats keep per-sender state, so each socket has its
    /// own); nil for those over TCP, which have a `StreamSession` per
    /// connection instead. `nmeaDevices` names NMEA senders by address
    /// (`[nmea.devices]`); the others ignore it.
    public func makeFormat(nmeaDevices: [String: String] = [:]) -> (any WireFormat)? {
        switch self {
        case .json: JSONWireFormat()
        case .teltonika: TeltonikaWireFormat()
        case .nmea: NMEAWireFormat(devices: nmeaDevices)
        case .osmand: OsmAndWireFormat()
        case .teltonikaTCP, .gt06, .h02: nil
        }
    }

    /// A new `StreamSession` for one connection of a protocol over TCP
    /// (nil for the others): frames up to `maxFrame` bytes; GT06 devices
    /// that send local time without saying so are `gt06OffsetMinutes`
    /// east of UTC.
    public func makeSession(maxFrame: Int, gt06OffsetMinutes: Int = 0) -> (any StreamSession)? {
        switch self {
        case .json, .teltonika, .nmea, .osmand: nil
        case .teltonikaTCP: TeltonikaTCPSession(maxFrame: maxFrame)
        case .gt06: GT06Session(maxFrame: maxFrame, utcOffsetMinutes: gt06OffsetMinutes)
        case .h02: H02Session(maxFrame: maxFrame)
        }
    }

    /// Whether fleetd can send it commands (over its TCP connection).
    public var takesCommands: Bool { transport == .tcp }

    /// The command text that switches digital output `index` (1…4; an
    /// immobiliser relay is usually 1) `on` or off, as the protocol's
    /// devices take it: Teltonika `setdigout` (`?` keeps an output as it
    /// is), GT06 `Relay,1#` / `Relay,0#`, H02 `S20,1,1` / `S20,1,0`; nil
    /// when the protocol has no such command (or not for that output).
    public func outputCommand(index: Int, on: Bool) -> String? {
        switch self {
        case .teltonika, .teltonikaTCP:
            (1...4).contains(index)
                ? "setdigout " + String(repeating: "?", count: index - 1) + (on ? "1" : "0") : nil
        case .gt06: index == 1 ? (on ? "Relay,1#" : "Relay,0#") : nil
        case .h02: index == 1 ? (on ? "S20,1,1" : "S20,1,0") : nil
        case .json, .nmea, .osmand: nil
        }
    }

    /// The protocols that arrive by `transport`, in registry order.
    public static func carried(by transport: Transport) -> [TrackerProtocol] {
        allCases.filter { $0.transport == transport }
    }

    /// Names for error messages: `json, teltonika, nmea or osmand`
    /// (`names` of the protocols, with other choices appended when given).
    public static func list(_ protocols: [TrackerProtocol] = allCases, also: [String] = [])
        -> String
    {
        let names = protocols.map(\.rawValue) + also
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
