import Logging
import NIOCore
import NIOPosix

/// On a TCP door's listening socket: when accepting fails for want of
/// resources (out of descriptors, `EMFILE`/`ENFILE`, or memory), stops
/// accepting for `pause` and logs it once per pause. Without it the event
/// loop spins: the socket stays readable while every `accept` fails, and
/// NIO keeps its read pending across the failure. New connections wait in
/// the kernel's backlog meanwhile.
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = any Channel

    private let pause: TimeAmount
    private let logger: Logger
    private let name: String
    private var paused = false

    init(name: String, pause: TimeAmount = .seconds(1), logger: Logger) {
        self.name = name
        self.pause = pause
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let e = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(e.errnoCode)
        else {
            context.fireErrorCaught(error)
            return
        }
        guard !paused else { return }
        paused = true
        logger.warning(
            "\(name): cannot accept connections (\(e.description)): paused \(pause.nanoseconds / 1_000_000) ms; raise LimitNOFILE or lower tcp.max_connections"
        )
        let channel = context.channel
        channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: pause) {
            bound.value.paused = false
            channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }
    }
}
