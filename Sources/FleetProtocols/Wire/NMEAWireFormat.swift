import FleetModel

/// NMEA 0183 over UDP: RMC and GGA sentences paired per sender
/// (`NMEAAssembler`), the device named by a `$PFLID` sentence or by the
/// sender's address. NMEA has no acknowledgement: nothing is answered.
public final class NMEAWireFormat: WireFormat {
    public let trackerProtocol = TrackerProtocol.nmea
    /// Device ids by sender, `ip:port` or `ip` (`[nmea.devices]`).
    private let devices: [String: String]
    /// One assembler per sender, with the device it speaks for.
    private var senders: [String: (device: String, assembler: NMEAAssembler, seenMs: Int64)] = [:]

    public init(devices: [String: String] = [:]) {
        self.devices = devices
    }

    public func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding {
        var d = WireDecoding()
        var sentences: [NMEASentence] = []
        let array = Array(bytes)
        for (i, piece) in NMEAParser.split(array).enumerated() {
            switch NMEAParser.parse(piece) {
            case .success(let s): sentences.append(s)
            case .failure(let f):
                d.rejections.append(
                    Rejection(item: i, seq: nil, reason: f.reason, detail: f.detail))
            }
        }
        guard
            sentences.contains(where: { if case .other = $0 { return false } else { return true } })
        else { return d }
        let who = sender()
        var entry = senders[who.text]
        if let device = identity(sentences, who) {
            if entry == nil || entry!.device != device { entry = (device, NMEAAssembler(), nowMs) }
        }
        guard var e = entry else {
            d.refusal = Rejection(
                item: 0, seq: nil, reason: .unknownDevice,
                detail: "no $PFLID sentence and \(who.text) is not in [nmea.devices]")
            return d
        }
        for s in sentences { d.fixes += e.assembler.add(s, device: e.device, nowMs: nowMs) }
        e.seenMs = nowMs
        senders[who.text] = e
        return d
    }

    /// The device a datagram speaks for: its `$PFLID`, else its sender's
    /// address in `[nmea.devices]` (`ip:port` first, then `ip`).
    private func identity(_ sentences: [NMEASentence], _ who: WireSender) -> String? {
        for s in sentences { if case .identity(let id) = s { return id } }
        return devices[who.text] ?? devices[who.ip]
    }

    /// Releases RMCs whose GGA did not come within a second, and forgets
    /// senders idle for a minute.
    public func flush(nowMs: Int64) -> [WireDecoding] {
        var out: [WireDecoding] = []
        for (key, var e) in senders {
            if e.assembler.hasPending, nowMs - e.assembler.pendingSince >= 1000 {
                out.append(WireDecoding(fixes: e.assembler.flush(device: e.device)))
                senders[key] = e
            } else if !e.assembler.hasPending, nowMs - e.seenMs > 60_000 {
                senders[key] = nil
            }
        }
        return out
    }

    public func reply(to d: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?
    { nil }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        "\(d.fixes[index].device) fix \(index)"
    }
}
