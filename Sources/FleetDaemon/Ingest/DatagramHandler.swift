import FleetProtocols
import Foundation

/// The wire protocols fleetd listens for, one UDP port each.
enum WireProtocol: String, Sendable {
    case json, teltonika, nmea
}

/// What one socket does with the datagrams it reads: decodes each as it is
/// read and hands the whole read batch's work to the engine at once (one
/// queue hop per batch, not per datagram). Owned by its `UDPListener`'s
/// thread; not thread-safe.
final class DatagramHandler {
    private let door: Door
    private let kind: WireProtocol
    private let socket: UDPSocket
    private var pending: [InboundDatagram] = []
    private var datagrams = 0
    private var fixes = 0
    /// Replies due at once (datagrams with nothing to commit), sent after the batch.
    private var immediate = ReplyBatch()
    /// NMEA: one assembler per sender, with the device it speaks for.
    private var assemblers: [String: (device: String, assembler: NMEAAssembler, seenMs: Int64)] =
        [:]

    init(door: Door, kind: WireProtocol, socket: UDPSocket) {
        self.door = door
        self.kind = kind
        self.socket = socket
    }

    /// Decodes one datagram received at `now` (Unix ms).
    func read(_ bytes: UnsafeBufferPointer<UInt8>, from peer: PeerAddress, now: Int64) {
        datagrams += 1
        switch kind {
        case .json:
            take(door.json(bytes, from: peer, socket: socket, receivedMs: now))
        case .teltonika:
            if let d = door.teltonika(bytes, from: peer, socket: socket, receivedMs: now) {
                take(d)
            }
        case .nmea:
            readNMEA(Array(bytes), from: peer, now: now)
        }
    }

    /// Queues a decoded datagram, or answers at once when it holds nothing to commit.
    private func take(_ d: InboundDatagram) {
        fixes += d.fixes.count
        if d.fixes.isEmpty {
            d.appendReply(to: &immediate)
        } else {
            pending.append(d)
        }
    }

    private func readNMEA(_ bytes: [UInt8], from peer: PeerAddress, now: Int64) {
        var sentences: [NMEASentence] = []
        for piece in NMEAParser.split(bytes) {
            switch NMEAParser.parse(piece) {
            case .success(let s): sentences.append(s)
            case .failure(let f):
                bytes.withUnsafeBufferPointer { door.refuse("nmea", f.reason, f.detail, $0, peer) }
            }
        }
        guard
            sentences.contains(where: { if case .other = $0 { return false } else { return true } })
        else { return }
        let key = peer.text
        var entry = assemblers[key]
        if let device = door.nmeaDevice(sentences, from: peer) {
            if entry == nil || entry!.device != device { entry = (device, NMEAAssembler(), now) }
        }
        guard var e = entry else {
            bytes.withUnsafeBufferPointer {
                door.refuse(
                    "nmea", .unknownDevice,
                    "no $PFLID sentence and \(peer) is not in [nmea.devices]", $0, peer)
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

    /// NMEA: releases RMCs whose GGA did not come within a second, and
    /// forgets senders idle for a minute. Called about every 0.5 s.
    func flushNMEA(now: Int64) {
        guard kind == .nmea else { return }
        for (key, var e) in assemblers {
            if e.assembler.hasPending, now - e.assembler.pendingSince >= 1000 {
                queueNMEA(e.assembler.flush(device: e.device), now: now)
                assemblers[key] = e
            } else if !e.assembler.hasPending, now - e.seenMs > 60_000 {
                assemblers[key] = nil
            }
        }
    }

    /// The end of a read batch: counts it, sends the immediate replies, and
    /// offers the decoded datagrams to the engine's queue (what does not fit
    /// is shed: reason `overload`, no reply).
    func batchComplete() {
        door.metrics.received(datagrams: datagrams, fixes: fixes)
        datagrams = 0
        fixes = 0
        if !immediate.isEmpty {
            socket.send(immediate)
            immediate.removeAll()
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
}
