import FleetConfig
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The HTTP servers' connections, the API's and the OsmAnd door's
/// together: how many are open in all and from each address
/// (`http.max_connections`, `http.max_connections_per_address`; a trusted
/// proxy's connections count only in the total). Thread-safe.
final class HTTPConnections: Sendable {
    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
    }
    private let state = Mutex(State())
    let maxTotal: Int
    let maxPerAddress: Int
    let trusted: [AddressRange]

    init(maxTotal: Int, maxPerAddress: Int, trusted: [AddressRange]) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
        self.trusted = trusted
    }

    /// Counts a new connection from `address`: true when it is taken.
    func open(from address: String) -> Bool {
        let capped = !AddressRange.any(trusted, contain: address)
        return state.withLock { s in
            let n = s.byAddress[address, default: 0]
            guard s.total < maxTotal, !capped || n < maxPerAddress else { return false }
            s.total += 1
            s.byAddress[address] = n + 1
            return true
        }
    }

    /// A connection `open` took from `address` closed.
    func close(from address: String) {
        state.withLock { s in
            s.total -= 1
            let n = s.byAddress[address, default: 1] - 1
            s.byAddress[address] = n > 0 ? n : nil
        }
    }
}

/// One HTTP connection's guard, in its pipeline after the HTTP codec:
/// counts it in `HTTPConnections` (closing it at once beyond a limit), and
/// closes it when a whole request (head and body) has not arrived within
/// `requestTimeout` of the connection's opening or of the end of its
/// previous response. The clock does not restart per byte, so a client
/// that trickles a request a byte at a time is cut off as surely as a
/// silent one. A request whose body a route has read to its end, and the
/// response that follows (an event stream for as long as it lasts), are
/// not timed.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let connections: HTTPConnections
    private let requestTimeout: TimeAmount
    private var address: String?
    private var deadline: Scheduled<Void>?
    /// A request's head has arrived and its end not yet.
    private var inRequest = false
    /// The response ended while its request was still arriving.
    private var answeredEarly = false

    init(connections: HTTPConnections, requestTimeout: TimeAmount) {
        self.connections = connections
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let from = context.channel.remoteAddress?.ipAddress ?? ""
        guard connections.open(from: from) else {
            context.close(promise: nil)
            return
        }
        address = from
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let address { connections.close(from: address) }
        address = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inRequest = true
        case .end:
            inRequest = false
            if answeredEarly {
                // Answered before its body was read: the next request is timed now.
                answeredEarly = false
                arm(context)
            } else {
                // Whole: the response takes as long as it takes.
                deadline?.cancel()
                deadline = nil
            }
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            // While the request is still arriving, its deadline still runs.
            if inRequest { answeredEarly = true } else { arm(context) }
        }
        context.write(data, promise: promise)
    }

    /// The next request must be whole within `requestTimeout` from now.
    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: requestTimeout) {
            channel.close(promise: nil)
        }
    }
}
