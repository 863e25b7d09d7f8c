import FleetProtocols
import Foundation

/// The UDP transport's side of the ingest seam: what one socket does with
/// the datagrams it reads, whatever its protocol. Decodes each with the
/// socket's `WireFormat` as it is read, hands it to the `Door` answered by
/// datagram (`Acknowledgement.datagram`), and offers the whole read
/// batch's arrivals to the engine at once (one queue hop per batch, not per
/// datagram). Owned by its `UDPListener`'s thread; not thread-safe.
final class DatagramHandler {
    private let door: Door
    let format: any WireFormat
    private let socket: UDPSocket
    private var pending: [Arrival] = []
    private var datagrams = 0
    private var fixes = 0
    /// Replies due at once (datagrams with nothing to commit), sent after the batch.
    private var immediate = ReplyBatch()
    /// `[udp] bad_items_per_source_s`: items from one address that may
    /// fail to decode in a second before its datagrams are dropped unread
    /// (0: no limit).
    private let badPerSource: Int
    /// This second's items that failed to decode, by address; `second` is
    /// the Unix second they count in.
    private var bad: [PeerAddress.Host: Int] = [:]
    private var second: Int64 = 0

    init(door: Door, format: any WireFormat, socket: UDPSocket, badPerSource: Int = 0) {
        self.door = door
        self.format = format
        self.socket = socket
        self.badPerSource = badPerSource
    }

    /// Decodes one datagram received at `now` (Unix ms), unless its address
    /// has sent `badPerSource` items that failed to decode this second:
    /// then it is dropped unread (`refused_flood`), so that a stream of
    /// broken datagrams costs a hash look-up each, not a decode, counts
    /// and a reply.
    func read(_ bytes: UnsafeBufferPointer<UInt8>, from peer: PeerAddress, now: Int64) {
        datagrams += 1
        if badPerSource > 0 {
            if now / 1000 != second {
                second = now / 1000
                bad.removeAll(keepingCapacity: true)
            }
            // Good traffic (no address counted this second) pays no look-up.
            if !bad.isEmpty, let n = bad[peer.host], n >= badPerSource {
                door.metrics.rejected(format.name, .refusedFlood)
                return
            }
        }
        let decoded = format.decode(
            bytes, sender: { WireSender(text: peer.text, ip: peer.ip) }, nowMs: now)
        if badPerSource > 0, decoded.refusal != nil || !decoded.rejections.isEmpty {
            bad[peer.host, default: 0] +=
                decoded.rejections.count + (decoded.refusal == nil ? 0 : 1)
        }
        take(
            door.admit(
                decoded, format: format, bytes: bytes, from: .datagram(peer),
                answer: .datagram(ReplyRoute(socket: socket, address: peer)), receivedMs: now))
    }

    /// Queues a screened datagram, or answers at once when it holds nothing to commit.
    private func take(_ admission: Admission) {
        guard case .admitted(let d) = admission else { return }
        fixes += d.fixes.count
        if d.fixes.isEmpty {
            d.appendReply(to: &immediate)
        } else {
            pending.append(d)
        }
    }

    /// Takes what the format held back and has now released (NMEA's RMCs
    /// whose GGA did not come). Called about every 0.5 s.
    func flush(now: Int64) {
        for d in format.flush(nowMs: now) {
            take(
                door.admit(
                    d, format: format, bytes: nil, from: .held, answer: .none, receivedMs: now))
        }
    }

    /// The end of a read batch: counts it, sends the immediate replies, and
    /// offers the decoded datagrams to the engine's queue (what does not fit
    /// is shed: reason `overload`, no reply).
    func batchComplete() {
        door.metrics.received(format.name, datagrams: datagrams, fixes: fixes)
        datagrams = 0
        fixes = 0
        if !immediate.isEmpty {
            socket.send(immediate)
            immediate.removeAll()
        }
        guard !pending.isEmpty else { return }
        _ = door.offer(pending, proto: format.name)
        pending.removeAll(keepingCapacity: true)
    }
}
