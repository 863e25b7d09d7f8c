import CBatchUDP
import FleetModel
import FleetProtocols
import Foundation
import Logging
import Synchronization

/// A thread that reads one UDP socket: up to 64 datagrams per
/// `recvmmsg(2)`, each decoded by the socket's `DatagramHandler`, the batch
/// then queued for the engine. It waits for data at most 0.1 s at a time,
/// to see `stop` and to release what its format holds back (NMEA).
final class UDPListener: @unchecked Sendable {
    let socket: UDPSocket
    private let handler: DatagramHandler
    /// The protocol this socket speaks (its `[listen]` key).
    var name: String { handler.format.name }
    private let stopping = Atomic<Bool>(false)
    /// Wall-clock time of the read loop's last turn, Unix ms (for the
    /// watchdog; the loop turns at least every 0.1 s).
    let heartbeat = Atomic<Int64>(WallClock.system.nowMs())

    /// Its last sign of life for the watchdog: a listener told to stop is
    /// not hung (while fleetd stops, the writer may take many seconds to
    /// commit what was queued, and the listeners have ended meanwhile).
    var lastSignOfLife: Int64 {
        stopping.load(ordering: .relaxed)
            ? WallClock.system.nowMs() : heartbeat.load(ordering: .relaxed)
    }
    private let done = DispatchSemaphore(value: 0)
    /// `[udp] receiver_nice`: the nice value the thread asks for.
    private let nice: Int32
    private let logger: Logger
    /// Datagrams per `recvmmsg`, and bytes kept for each: the largest UDP
    /// payload (65 507 bytes) is read whole.
    static let batch = 64
    /// The pause after a read that drained the socket, µs (see `run`).
    static let gatherMicroseconds: UInt32 = 250
    static let slot = 65_536

    /// `badPerSource`: `[udp] bad_items_per_source_s` (0: no limit);
    /// `nice`: `[udp] receiver_nice`.
    init(
        socket: UDPSocket, format: any WireFormat, door: Door, badPerSource: Int = 0,
        nice: Int32 = 0, logger: Logger
    ) {
        self.socket = socket
        self.nice = nice
        self.logger = logger
        self.handler = DatagramHandler(
            door: door, format: format, socket: socket, badPerSource: badPerSource)
    }

    func start() {
        let thread = Thread { [self] in
            // Its priority first: once the thread shows its name, it runs at its nice value.
            prioritize()
            // Set from the thread itself, so `top -H` and `ps -L` show it (15 bytes at most).
            ThreadName.set("udp-\(name)")
            run()
            done.signal()
        }
        thread.start()
    }

    /// Stops reading after the batch in hand (which is queued), and waits.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        done.wait()
    }

    /// Asks for `nice` on this thread when it is below the process's value;
    /// a refusal is logged and the thread goes on at the process's value.
    private func prioritize() {
        let own = ThreadNice.current
        guard nice < own else { return }
        let refused = ThreadNice.set(nice)
        if refused != 0 {
            logger.notice(
                "udp-\(name) stays at nice \(own): nice \(nice) (udp.receiver_nice) was refused (\(String(cString: strerror(refused)))); it needs CAP_SYS_NICE or LimitNICE=\(nice), and without it a busy machine may drop datagrams at the socket"
            )
        }
    }

    private static func nowMs() -> Int64 { WallClock.system.nowMs() }

    private func run() {
        var bytes = [UInt8](repeating: 0, count: Self.batch * Self.slot)
        var lengths = [UInt32](repeating: 0, count: Self.batch)
        var addrs = [UInt8](repeating: 0, count: Self.batch * Int(CBU_ADDR_SLOT))
        var addrLengths = [UInt32](repeating: 0, count: Self.batch)
        var lastFlush = Self.nowMs()
        if FaultInjection.hang == "listener:\(name)" {
            // FLEETD_FAULT_HANG: this thread stops turning its loop (it
            // only waits to be stopped), as a hung one would.
            while !stopping.load(ordering: .relaxed) { usleep(50_000) }
            return
        }
        while !stopping.load(ordering: .relaxed) {
            heartbeat.store(Self.nowMs(), ordering: .relaxed)
            let n = bytes.withUnsafeMutableBufferPointer { b in
                lengths.withUnsafeMutableBufferPointer { l in
                    addrs.withUnsafeMutableBufferPointer { a in
                        addrLengths.withUnsafeMutableBufferPointer { al in
                            cbu_recv_from_batch(
                                socket.fd, b.baseAddress!, UInt32(Self.slot), l.baseAddress!,
                                a.baseAddress!, al.baseAddress!, Int32(Self.batch))
                        }
                    }
                }
            }
            let now = Self.nowMs()
            if n > 0 {
                bytes.withUnsafeBufferPointer { b in
                    addrs.withUnsafeBytes { a in
                        for i in 0..<Int(n) {
                            let peer = PeerAddress(
                                raw: a.baseAddress! + i * Int(CBU_ADDR_SLOT),
                                length: Int(addrLengths[i]))
                            let datagram = UnsafeBufferPointer(
                                rebasing: b[(i * Self.slot)..<(i * Self.slot + Int(lengths[i]))])
                            handler.read(datagram, from: peer, now: now)
                        }
                    }
                }
            }
            if now - lastFlush >= 500 {
                handler.flush(now: now)
                lastFlush = now
            }
            handler.batchComplete()
            if n < Self.batch {
                // Drained (or an error, e.g. ICMP unreachable for an earlier
                // reply, which concerns one peer only): wait for more. After
                // a partial read, first let a few more arrive (0.25 ms, far
                // below the engine's batching delay), so that under load each
                // wake-up reads a fuller batch instead of one or two datagrams.
                if n > 0 { usleep(Self.gatherMicroseconds) }
                _ = cbu_wait_readable(socket.fd, 100_000_000)
            }
        }
        handler.batchComplete()
    }
}
