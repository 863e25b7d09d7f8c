import FleetModel
import FleetProtocols
import FleetStorage
import Logging
import NIOCore

/// One device's TCP connection, on its event loop: bytes in, the
/// protocol's `StreamSession` frames and decodes them unit by unit, the
/// door screens and queues each unit of fixes with a `CommitWaiter`, and
/// its reply is written once they are committed. While a unit waits for
/// its commit the next units wait in the buffer, so a device is answered
/// in order; once more than `maxFrame` bytes wait, the connection stops
/// reading until the commit (a fast sender is held back by its own TCP
/// window). Reading is not paused for every unit: each pause and resume
/// costs the event loop a system call (`epoll_ctl`).
///
/// Closed on: the session's `.close` (framing lost, a refused handshake),
/// more than `maxFrame` bytes buffered, no identity within the handshake
/// timeout, nothing read within the idle timeout (also what reaps a
/// half-open connection), a commit not made within the commit timeout, a
/// newer connection of the same device.
final class StreamConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Settings: Sendable {
        var handshakeTimeoutS: Int
        var commitTimeoutS: Int
        var maxFrame: Int
    }

    private let session: any StreamSession
    private let door: Door
    private let table: ConnectionTable
    /// Where commands come from and answers go (nil: no commands).
    private let desk: CommandDesk?
    private let settings: Settings
    private let clock: WallClock
    /// `ip:port` of the peer, and its address alone (the per-address limit's key).
    private let peer: String
    private let address: String
    private var pending: ByteBuffer?
    /// The unit waiting for its commit, if one is: its number (bumped per
    /// unit, so a late outcome of an abandoned one is ignored) and the
    /// reply owed once it is made.
    private var underCommit: (number: Int, reply: WireReply?, sinceMs: Int64)?
    /// The commit timeout's one timer, armed while a unit waits (not one
    /// per unit: thousands of units a second would fill the loop's timer
    /// heap with tasks that almost never fire).
    private var commitWatch: Scheduled<Void>?
    private var unitNumber = 0
    private var waiting: Bool { underCommit != nil }
    /// Reading paused (too much buffered while a unit waits for its commit).
    private var paused = false
    private var context: ChannelHandlerContext?
    private var closed = false
    /// Commands waiting for the unit under commit to be answered (a
    /// Teltonika device takes commands only once its records are).
    private var outbox: [CommandRecord] = []

    init(
        session: any StreamSession, door: Door, table: ConnectionTable, desk: CommandDesk?,
        settings: Settings, clock: WallClock, peer: String, address: String
    ) {
        self.session = session
        self.door = door
        self.table = table
        self.desk = desk
        self.settings = settings
        self.clock = clock
        self.peer = peer
        self.address = address
    }

    private var name: String { session.name }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .seconds(Int64(settings.handshakeTimeoutS))) {
            let me = bound.value
            guard me.session.device == nil, !me.closed else { return }
            me.refuse(
                .handshakeTimeout,
                "no identity within \(me.settings.handshakeTimeoutS) s (tcp.handshake_timeout_s)")
            me.shut()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        commitWatch?.cancel()
        commitWatch = nil
        table.close(from: address, device: session.device, channel: context.channel)
        door.metrics.tcpConnection(name, opened: false)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if pending == nil {
            pending = incoming
        } else {
            pending!.writeBuffer(&incoming)
        }
        let buffered = pending?.readableBytes ?? 0
        if buffered > 2 * settings.maxFrame {
            refuse(
                .oversize, "more than \(2 * settings.maxFrame) bytes unread (tcp.max_frame_bytes)")
            shut()
            return
        }
        if waiting, !paused, buffered > settings.maxFrame {
            paused = true
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
        process()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? IdleStateHandler.IdleStateEvent, e == .read {
            door.logger.info("\(name): closing the idle connection from \(peer)")
            shut()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or broken pipe: the device is gone; nothing to answer.
        shut()
    }

    /// Acts on each whole unit buffered, in order, until one waits for its commit.
    private func process() {
        while !waiting, !closed, var buffer = pending, buffer.readableBytes > 0 {
            let now = clock.nowMs()
            let hadDevice = session.device != nil
            let step = buffer.withUnsafeReadableBytes { raw in
                raw.withMemoryRebound(to: UInt8.self) { b in
                    session.next(b, nowMs: now, known: door.known)
                }
            }
            switch step {
            case .needMore:
                return
            case .close(let r, let answer):
                refuse(r.reason, r.detail)
                if answer.isEmpty {
                    shut()
                } else {
                    write(answer, thenClose: true)
                }
                return
            case .unit(let consumed, let unit):
                buffer.moveReaderIndex(forwardBy: consumed)
                pending = buffer.readableBytes > 0 ? buffer : nil
                if !hadDevice, let device = session.device, let context {
                    if let old = table.claim(device, by: context.channel) {
                        door.logger.info(
                            "\(name): device \(device) reconnected from \(peer); closing its older connection"
                        )
                        old.close(promise: nil)
                    }
                    desk?.connected(device)
                }
                act(on: unit, now: now)
            }
        }
    }

    private func act(on unit: StreamUnit, now: Int64) {
        switch unit {
        case .answer(let bytes):
            if !bytes.isEmpty { write(bytes) }
        case .refused(let r):
            refuse(r.reason, r.detail)
        case .commandAnswer(let text):
            if let device = session.device, let desk {
                desk.answered(device, text: text)
            } else {
                door.logger.info(
                    "\(name): device \(session.device ?? "?") answered: \(text.prefix(200))")
            }
        case .fixes(let d):
            commit(d, now: now)
        }
    }

    /// Screens one unit of fixes, queues it and waits for its commit (the
    /// units after it wait in the buffer); its reply is written once it is made.
    private func commit(_ d: WireDecoding, now: Int64) {
        guard let context else { return }
        door.metrics.received(name, datagrams: 1, fixes: d.fixes.count)
        unitNumber += 1
        let number = unitNumber
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        let waiter = CommitWaiter { ok in
            loop.execute { bound.value.committed(ok, number) }
        }
        let admission = door.admit(
            d, format: session, bytes: nil,
            from: .connection(peer, device: session.device), answer: .waiter(waiter),
            receivedMs: now)
        switch admission {
        case .refused:
            return  // counted by the door; unanswered, so the device resends
        case .admitted(let arrival):
            if arrival.fixes.isEmpty {
                if let reply = arrival.reply { write(reply.bytes) }
                return
            }
            guard door.offer([arrival], proto: name) == 1 else { return }  // shed: resent later
            underCommit = (number, arrival.reply, now)
            if commitWatch == nil { watchCommit(in: Int64(settings.commitTimeoutS) * 1000) }
        }
    }

    /// Arms the commit timeout's timer to look in `ms`: a unit waiting
    /// longer than `tcp.commit_timeout_s` closes the connection unanswered;
    /// one waiting less re-arms it for the rest of its time.
    private func watchCommit(in ms: Int64) {
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        commitWatch = context.eventLoop.scheduleTask(in: .milliseconds(max(ms, 1))) {
            let me = bound.value
            me.commitWatch = nil
            guard let unit = me.underCommit, !me.closed else { return }
            let left = unit.sinceMs + Int64(me.settings.commitTimeoutS) * 1000 - me.clock.nowMs()
            guard left <= 0 else {
                me.watchCommit(in: left)
                return
            }
            me.door.logger.warning(
                "\(me.name): fixes from \(me.peer) not committed within \(me.settings.commitTimeoutS) s; closing the connection unanswered"
            )
            me.shut()
        }
    }

    /// The outcome of unit `number`'s commit (on the event loop).
    private func committed(_ ok: Bool, _ number: Int) {
        guard let unit = underCommit, unit.number == number, !closed else { return }
        underCommit = nil
        if ok, let reply = unit.reply { write(reply.bytes) }
        if !ok {
            // Not taken here (cluster: another node's device): unanswered, the device resends.
            shut()
            return
        }
        if paused {
            paused = false
            context?.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }
        flushOutbox()
        process()
    }

    /// Sends `command` now, or once the unit under commit is answered (on the event loop).
    func deliver(_ command: CommandRecord) {
        outbox.append(command)
        if !waiting { flushOutbox() }
    }

    private func flushOutbox() {
        guard !closed, context != nil else { return }
        let due = outbox
        outbox = []
        for c in due {
            guard let bytes = session.command(c.text, nowMs: clock.nowMs()) else {
                desk?.unsent(c)
                continue
            }
            write(bytes)
            desk?.sent(c)
        }
    }

    /// Writes `bytes`; then closes the connection when `thenClose`.
    private func write(_ bytes: [UInt8], thenClose: Bool = false) {
        guard let context, !closed else { return }
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        let future = context.writeAndFlush(wrapOutboundOut(buffer))
        if thenClose {
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            future.whenComplete { _ in bound.value.shut() }
        }
    }

    private func refuse(_ reason: RejectReason, _ detail: String) {
        door.refuse(name, reason, detail, nil, .connection(peer, device: session.device))
    }

    private func shut() {
        guard !closed, let context else { return }
        closed = true
        pending = nil
        commitWatch?.cancel()
        commitWatch = nil
        for c in outbox { desk?.unsent(c) }  // sent on the device's next connection
        outbox = []
        context.close(promise: nil)
    }
}
