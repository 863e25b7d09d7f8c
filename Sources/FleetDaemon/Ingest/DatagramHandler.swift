import FleetProtocols
import Foundation
import NIOCore

/// The wire protocols fleetd listens for, one UDP port each.
enum WireProtocol: String, Sendable {
    case json, teltonika, nmea
}

/// The NIO handler on a UDP channel: decodes each datagram as it is read and
/// hands the whole read cycle's work to the engine at once (one hop per
/// batch, not per datagram).
final class DatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let door: Door
    private let kind: WireProtocol
    private var pending: [InboundDatagram] = []
    private var datagrams = 0
    private var fixes = 0
    private var replied = false
    /// NMEA: one assembler per sender, with the device it speaks for.
    private var assemblers: [String: (device: String, assembler: NMEAAssembler, seenMs: Int64)] =
        [:]

    init(door: Door, kind: WireProtocol) {
        self.door = door
        self.kind = kind
    }

    func channelActive(context: ChannelHandlerContext) {
        guard kind == .nmea else { return }
        // Release RMCs whose GGA did not come within a second; forget idle senders.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .milliseconds(500))
        { _ in
            let (handler, context) = loopBound.value
            handler.flushNMEA(context: context)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let channel = context.channel
        datagrams += 1
        switch kind {
        case .json:
            let d = envelope.data.withUnsafeReadableBytes { raw in
                door.json(
                    raw.bindMemory(to: UInt8.self), from: envelope.remoteAddress, channel: channel,
                    receivedMs: now)
            }
            take(d, context: context)
        case .teltonika:
            let d = envelope.data.withUnsafeReadableBytes { raw in
                door.teltonika(
                    raw.bindMemory(to: UInt8.self), from: envelope.remoteAddress, channel: channel,
                    receivedMs: now)
            }
            if let d { take(d, context: context) }
        case .nmea:
            readNMEA(envelope, now: now)
        }
    }

    /// Queues a decoded datagram, or answers at once when it holds nothing to commit.
    private func take(_ d: InboundDatagram, context: ChannelHandlerContext) {
        fixes += d.fixes.count
        if d.fixes.isEmpty {
            if let route = d.replyTo, let bytes = d.replyBytes() {
                context.write(
                    wrapOutboundOut(
                        AddressedEnvelope(
                            remoteAddress: route.address, data: ByteBuffer(bytes: bytes))),
                    promise: nil)
                replied = true
            }
        } else {
            pending.append(d)
        }
    }

    private func readNMEA(_ envelope: AddressedEnvelope<ByteBuffer>, now: Int64) {
        let bytes = Array(envelope.data.readableBytesView)
        var sentences: [NMEASentence] = []
        for piece in NMEAParser.split(bytes) {
            switch NMEAParser.parse(piece) {
            case .success(let s): sentences.append(s)
            case .failure(let f):
                bytes.withUnsafeBufferPointer {
                    door.refuse("nmea", f.reason, f.detail, $0, envelope.remoteAddress)
                }
            }
        }
        guard
            sentences.contains(where: { if case .other = $0 { return false } else { return true } })
        else { return }
        let key = "\(envelope.remoteAddress)"
        var entry = assemblers[key]
        if let device = door.nmeaDevice(sentences, from: envelope.remoteAddress) {
            if entry == nil || entry!.device != device { entry = (device, NMEAAssembler(), now) }
        }
        guard var e = entry else {
            bytes.withUnsafeBufferPointer {
                door.refuse(
                    "nmea", .unknownDevice,
                    "no $PFLID sentence and \(envelope.remoteAddress) is not in [nmea.devices]",
                    $0, envelope.remoteAddress)
            }
            return
        }
        var out: [Fix] = []
        for s in sentences { out += e.assembler.add(s, device: e.device, nowMs: now) }
        e.seenMs = now
        assemblers[key] = e
        queueNMEA(out, now: now)
    }

    private func queueNMEA(_ out: [Fix], now: Int64) {
        guard !out.isEmpty else { return }
        let d = door.screened(out, proto: "nmea", receivedMs: now)
        fixes += d.fixes.count
        if !d.fixes.isEmpty { pending.append(d) }
    }

    private func flushNMEA(context: ChannelHandlerContext) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (key, var e) in assemblers {
            if e.assembler.hasPending, now - e.assembler.pendingSince >= 1000 {
                queueNMEA(e.assembler.flush(device: e.device), now: now)
                assemblers[key] = e
            } else if !e.assembler.hasPending, now - e.seenMs > 60_000 {
                assemblers[key] = nil
            }
        }
        channelReadComplete(context: context)
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
                door.metrics.rejected(kind.rawValue, .overload, count: d.fixes.count)
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
