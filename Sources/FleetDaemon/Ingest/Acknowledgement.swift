/// How the sender of one arrival learns that its fixes are committed,
/// chosen by its transport once, when it hands the arrival to the `Door`.
/// The reply sink acts on it after the commit, never before.
enum Acknowledgement: Sendable {
    /// Nothing is owed (NMEA; JSON lines without `seq`; a reply the format
    /// withholds).
    case none
    /// The arrival's `WireReply` is sent on a UDP socket to the sender's
    /// address by the reply sink (`sendmmsg`, batched per socket).
    case datagram(ReplyRoute)
    /// The transport awaits the commit and answers itself (an HTTP
    /// request's status; next, a TCP connection's bytes).
    case waiter(CommitWaiter)

    /// The fixes are committed: wakes a waiting transport (the reply sink
    /// sends datagram replies itself, in batches).
    func committed() {
        if case .waiter(let w) = self { w.committed() }
    }

    /// The fixes will not be committed here (cluster: their device is
    /// another node's): a waiting transport answers that it was not taken;
    /// a datagram's sender is told nothing and resends.
    func dropped() {
        if case .waiter(let w) = self { w.refused() }
    }
}

/// A socket and a peer address to send a reply to.
struct ReplyRoute: Sendable {
    let socket: UDPSocket
    let address: PeerAddress
}
