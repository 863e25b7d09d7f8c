import FleetProtocols
import Foundation
import NIOCore

/// The NIO handler on a UDP channel: decodes each datagram as it is read and
/// hands the whole read cycle's work to the engine at once (one hop per
/// batch, not per datagram).
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let door: Door
    private var pending: [InboundDatagram] = []
    private var datagrams = 0
    private var fixes = 0
    private var replied = false

    init(door: Door) { self.door = door }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let channel = context.channel
        let d = envelope.data.withUnsafeReadableBytes { raw in
            door.json(
                raw.bindMemory(to: UInt8.self), from: envelope.remoteAddress, channel: channel,
                receivedMs: now)
        }
        datagrams += 1
        fixes += d.fixes.count
        if d.fixes.isEmpty {
            // Nothing to commit: tell the sender about its refused lines now.
            if let route = d.replyTo {
                let reply = JSONReply(acked: [], rejected: d.rejected)
                context.write(
                    wrapOutboundOut(
                        AddressedEnvelope(
                            remoteAddress: route.address, data: ByteBuffer(bytes: reply.encoded()))),
                    promise: nil)
                replied = true
            }
        } else {
            pending.append(d)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        door.metrics.received(datagrams: datagrams, fixes: fixes)
        datagrams = 0
        fixes = 0
        if replied {
            context.flush()
            replied = false
        }
        guard !pending.isEmpty else { return }
        let taken = door.queue.offer(pending)
        if taken < pending.count {
            for d in pending[taken...] {
                door.metrics.rejected("json", .overload, count: d.fixes.count)
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket error (e.g. ICMP port unreachable for an earlier reply)
        // concerns one peer only; the channel stays open.
        door.logger.debug("udp channel error: \(error)")
    }
}
