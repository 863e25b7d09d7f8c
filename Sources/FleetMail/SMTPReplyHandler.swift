import NIOCore

/// One reply of an SMTP server (RFC 5321 §4.2): a three-digit code and the
/// text of its lines (several when the server continues with `code-`).
public struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var lines: [String]

    public var description: String { "\(code) " + lines.joined(separator: " / ") }
}

/// Splits what the server sends into replies, and hands them to whoever
/// waits for the next one. Bounds what a hostile server can make it hold:
/// a line of 4 096 bytes, a reply of 100 lines.
final class SMTPReplyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let maxLine = 4096
    static let maxLines = 100

    private var partial: [UInt8] = []
    private var lines: [String] = []
    private var ready = CircularBuffer<SMTPReply>()
    private var waiting = CircularBuffer<EventLoopPromise<SMTPReply>>()
    private var failure: SMTPError?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard failure == nil, let bytes = buffer.readBytes(length: buffer.readableBytes) else {
            return
        }
        partial += bytes
        while failure == nil, let nl = partial.firstIndex(of: 0x0A) {
            var line = Array(partial[..<nl])
            partial.removeFirst(nl + 1)
            if line.last == 0x0D { line.removeLast() }
            take(line, context)
        }
        if partial.count > Self.maxLine {
            fail(SMTPError("the server sent a line longer than \(Self.maxLine) bytes"), context)
        }
    }

    private func take(_ line: [UInt8], _ context: ChannelHandlerContext) {
        guard line.count >= 3, line.prefix(3).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let code = Int(String(decoding: line.prefix(3), as: UTF8.self)),
            (200...599).contains(code), line.count == 3 || line[3] == 0x20 || line[3] == 0x2D
        else {
            let shown = String(decoding: line.prefix(60), as: UTF8.self)
            fail(
                SMTPError("the server sent something that is not an SMTP reply: \"\(shown)\""),
                context)
            return
        }
        lines.append(line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : "")
        if lines.count > Self.maxLines {
            fail(SMTPError("the server sent a reply of more than \(Self.maxLines) lines"), context)
            return
        }
        if line.count > 3, line[3] == 0x2D { return }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if let p = waiting.popFirst() {
            p.succeed(reply)
        } else {
            ready.append(reply)
        }
    }

    /// The next reply: one already here, or a future of the next to come.
    func next(on loop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        if let r = ready.popFirst() { return loop.makeSucceededFuture(r) }
        if let failure { return loop.makeFailedFuture(failure) }
        let p = loop.makePromise(of: SMTPReply.self)
        waiting.append(p)
        return p.futureResult
    }

    /// Fails every waiter (and every later `next`) with `error`, and closes.
    func fail(_ error: SMTPError, _ context: ChannelHandlerContext?) {
        if failure == nil { failure = error }
        while let p = waiting.popFirst() { p.fail(failure ?? error) }
        context?.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPError("the server closed the connection"), nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(SMTPError("\(error)"), context)
    }
}
