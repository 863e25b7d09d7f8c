import FleetConfig
import FleetModel
import FleetProtocols
import Logging
import NIOCore
import NIOPosix

/// The TCP door of one protocol over TCP (`[listen]` `teltonika_tcp`,
/// `gt06`, `h02`): a listening socket on NIO's event loops (non-blocking,
/// epoll), each accepted connection a `StreamConnection` with its own
/// `StreamSession`, under the `[tcp]` limits. A slow or silent client
/// costs a socket and a few hundred bytes, never a thread.
///
/// Bound at start-up (a port in use is an error naming it) or adopted from
/// systemd (`ListenStream=`), accepting nothing until `start`.
final class StreamListener: Sendable {
    let proto: TrackerProtocol
    let channel: any Channel
    /// `host:port` it listens on.
    let local: String

    private init(proto: TrackerProtocol, channel: any Channel) {
        self.proto = proto
        self.channel = channel
        self.local = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
    }

    var name: String { proto.key }

    /// Listens for `proto` on `address`, or on `inherited` (a listening
    /// socket systemd passed) when given.
    static func bind(
        _ proto: TrackerProtocol, address: ListenAddress?, inherited: Int32?, door: Door,
        table: ConnectionTable, desk: CommandDesk?, config: TCPConfig, clock: WallClock = .system
    ) async throws -> StreamListener {
        let settings = StreamConnection.Settings(
            handshakeTimeoutS: config.handshakeTimeoutS, commitTimeoutS: config.commitTimeoutS,
            maxFrame: config.maxFrameBytes)
        let idle = TimeAmount.seconds(Int64(config.idleTimeoutS))
        let maxFrame = config.maxFrameBytes
        let offset = config.gt06UTCOffsetMinutes
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.autoRead, value: false)
            // Out of descriptors (EMFILE), accepting pauses for a while
            // instead of spinning on a listening socket that stays readable.
            .serverChannelInitializer { [logger = door.logger] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptPause(name: proto.key, logger: logger))
                }
            }
            .childChannelOption(.socketOption(.so_keepalive), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(
                .recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(
                    minimum: 64, initial: 512, maximum: min(maxFrame, 65_536))
            )
            .childChannelInitializer { channel in
                let remote = channel.remoteAddress
                let ip = remote?.ipAddress ?? "?"
                let port = remote?.port ?? 0
                let peer = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
                // Carried by TCP: every one has a session.
                guard let session = proto.makeSession(maxFrame: maxFrame, gt06OffsetMinutes: offset)
                else {
                    return channel.close()
                }
                if let why = table.open(channel, from: ip) {
                    door.refuse(
                        proto.key, .connectionLimit, why, nil, .connection(peer, device: nil))
                    return channel.close()
                }
                door.metrics.tcpConnection(proto.key, opened: true)
                do {
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(readTimeout: idle))
                    try channel.pipeline.syncOperations.addHandler(
                        StreamConnection(
                            session: session, door: door, table: table, desk: desk,
                            settings: settings,
                            clock: clock, peer: peer, address: ip))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
        let channel: any Channel
        do {
            if let fd = inherited {
                channel = try await bootstrap.withBoundSocket(fd).get()
            } else if let address {
                channel = try await bootstrap.bind(host: address.host, port: address.port).get()
            } else {
                throw StartupError("\(proto.key): no address")
            }
        } catch let e as StartupError {
            throw e
        } catch {
            throw StartupError(
                "cannot listen on \(address.map { "\($0)" } ?? "the passed socket") (listen.\(proto.key), TCP): \(error)"
            )
        }
        return StreamListener(proto: proto, channel: channel)
    }

    /// Starts accepting.
    func start() {
        channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    }

    /// Stops accepting (connections already open stay until `ConnectionTable.closeAll`).
    func stop() {
        channel.close(promise: nil)
    }
}
