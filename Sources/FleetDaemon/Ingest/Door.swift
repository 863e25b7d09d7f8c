import FleetConfig
import FleetModel
import FleetProtocols
import FleetTracking
import Foundation
import Logging
import Synchronization

/// Where every fix enters, whatever its protocol and transport: a
/// transport (a UDP socket's `DatagramHandler`, the OsmAnd HTTP server
/// through `DaemonAPI.ingest`) decodes what it received with its
/// `WireFormat` and hands the door the decoding, where it came from and
/// how its sender is answered (`Acknowledgement`). The door screens it
/// (pure), counts and logs refusals, and makes the `Arrival` the engine
/// queues, with the reply its sender is owed once it is committed.
/// `admit` is the only screening entry; `offer` the only way to the queue.
final class Door: Sendable {
    let queue: InboundQueue
    let metrics: Metrics
    let screen: ScreenPolicy
    let logger: Logger
    let rejectLog: RateLimiter
    /// Registered device ids, when unknown devices are refused; nil accepts all.
    let registered: DeviceRegistry?
    /// With an open registry, the budget of new device ids (nil: none).
    let newDevices: NewDeviceBudget?
    /// Per-device rules (`devices.policy_file`; replaced on SIGHUP).
    let policy: Mutex<DevicePolicy>
    /// The protocol each device was last heard over (what commands it can
    /// take), as its place in `TrackerProtocol.allCases` (`notAProtocol`
    /// for a name that is none): a byte, not the name, for each of what can
    /// be 100 000 devices and more (4 MB less than a string each).
    private let heard = Mutex<[String: UInt8]>([:])
    private static let protocols = TrackerProtocol.allCases
    private static let notAProtocol = UInt8.max

    /// The protocol `device` was last heard over this run, if it was.
    func heardOver(_ device: String) -> TrackerProtocol? {
        guard let code = heard.withLock({ $0[device] }), code != Self.notAProtocol else {
            return nil
        }
        return Self.protocols[Int(code)]
    }

    /// False when unknown devices are refused and `device` is not registered.
    func known(_ device: String) -> Bool {
        guard let registered else { return true }
        return registered.contains(device)
    }

    init(
        queue: InboundQueue, metrics: Metrics, screen: ScreenPolicy, logger: Logger,
        rejectLogPerSecond: Int, registered: Set<String>? = nil,
        newDevices: NewDeviceBudget? = nil, policy: DevicePolicy = DevicePolicy()
    ) {
        self.policy = Mutex(policy)
        self.registered = registered.map(DeviceRegistry.init)
        self.newDevices = registered == nil ? newDevices : nil
        self.queue = queue
        self.metrics = metrics
        self.screen = screen
        self.logger = logger
        self.rejectLog = RateLimiter(perSecond: rejectLogPerSecond)
    }

    /// Screens one decoded unit of `format` from `source`, received at
    /// `receivedMs`, whose sender is answered by `answer`. Refused items
    /// are counted and logged (`bytes`, what was received, shown in hex;
    /// nil for fixes a format held back and released later, and for HTTP
    /// requests). Refused whole (`.refused`, with the first reason) when
    /// the decoder refused it, or when every fix is refused and the format
    /// owes no reply for it: nothing is kept and nothing answered, so the
    /// sender resends. Otherwise the passing fixes keep their order and the
    /// reply is what the format owes for them; an arrival with no fix left
    /// is answered at once by its transport.
    func admit(
        _ d: WireDecoding, format: any FixFormat, bytes: UnsafeBufferPointer<UInt8>?,
        from source: ArrivalSource, answer: Acknowledgement, receivedMs: Int64
    ) -> Admission {
        for r in d.rejections {
            refuse(
                format.name, r.reason, "\(format.locate(item: r.item)): \(r.detail)", bytes, source)
        }
        if let r = d.refusal {
            refuse(format.name, r.reason, r.detail, bytes, source)
            return .refused(r.reason, r.detail)
        }
        var refused: [(fix: Int, reason: RejectReason)] = []
        var first: (RejectReason, String)?
        var lastDevice: String?
        var lastNew = false
        let rules = policy.withLock { $0.rules.isEmpty ? nil : $0 }
        let carriesKeys = format.trackerProtocol.carriesDeviceKey
        var keysToDrop = false
        for (i, fix) in d.fixes.enumerated() {
            if carriesKeys, fix.extra?.deviceKey != nil { keysToDrop = true }
            if let rules,
                let (rule, detail) = rules.refusal(
                    device: fix.device, source: source.address, key: fix.extra?.deviceKey,
                    carriesKeys: carriesKeys)
            {
                let reason: RejectReason = rule == .source ? .sourceNotAllowed : .badKey
                refused.append((i, reason))
                if first == nil { first = (reason, detail) }
                refuse(
                    format.name, reason, "\(format.locate(fix: i, in: d)): \(detail)", bytes, source
                )
                continue
            }
            // An open registry's budget of new ids, asked once per run of
            // fixes of one device.
            if let budget = newDevices {
                if fix.device != lastDevice {
                    lastDevice = fix.device
                    lastNew = !budget.admit(
                        fix.device, source: { source.address }, nowMs: receivedMs)
                }
                if lastNew {
                    refused.append((i, .newDeviceLimit))
                    if first == nil {
                        first = (
                            .newDeviceLimit,
                            "device \(fix.device) is new and the budget of new ids is spent"
                        )
                    }
                    refuse(
                        format.name, .newDeviceLimit,
                        "\(format.locate(fix: i, in: d)): device \(fix.device) is new: the budget of new ids (devices.new_per_source, devices.new_total) is spent",
                        bytes, source)
                    continue
                }
            }
            if let (reason, detail) = refusal(of: fix, receivedMs: receivedMs) {
                refused.append((i, reason))
                if first == nil { first = (reason, detail) }
                refuse(
                    format.name, reason, "\(format.locate(fix: i, in: d)): \(detail)", bytes,
                    source)
            }
        }
        // The usual case, every fix passes: the decoder's array is handed on
        // as it is (no copy), or its lone fix is taken out of it.
        var out = Arrival(fixes: d.fixes, reply: d.reply, ack: answer, receivedMs: receivedMs)
        if !refused.isEmpty {
            // The format says what is owed now (Teltonika: nothing for an
            // unregistered device, so its resends are taken once it is).
            out.reply = format.reply(to: d, refused: refused)
            if out.reply == nil, refused.count == d.fixes.count, let (reason, detail) = first {
                return .refused(reason, detail)  // nothing kept, nothing answered
            }
            var k = 0
            var kept: [Fix] = []
            kept.reserveCapacity(d.fixes.count - refused.count)
            for (i, fix) in d.fixes.enumerated() {
                if k < refused.count, refused[k].fix == i {
                    k += 1
                } else {
                    kept.append(fix)
                }
            }
            out.fixes = ArrivalFixes(kept)
        }
        // A key is checked here and goes no further (never stored, never shown).
        if keysToDrop {
            for i in out.fixes.indices where out.fixes[i].extra?.deviceKey != nil {
                out.fixes[i].extra?.deviceKey = nil
                if out.fixes[i].extra == FixExtra() { out.fixes[i].extra = nil }
            }
        }
        if out.reply == nil, case .datagram = answer { out.ack = .none }
        return .admitted(out)
    }

    /// Offers screened arrivals of protocol `proto` to the engine's queue:
    /// the longest prefix that fits is taken, the rest are shed (counted
    /// as `overload` per fix, nothing answered: the senders resend).
    /// Returns how many were taken.
    func offer(_ arrivals: [Arrival], proto: String) -> Int {
        let taken = queue.offer(arrivals)
        if taken > 0 {
            let code =
                Self.protocols.firstIndex { $0.rawValue == proto }.map(UInt8.init)
                ?? Self.notAProtocol
            heard.withLock { h in
                for a in arrivals[..<taken] {
                    if let d = a.fixes.first?.device, h[d] != code { h[d] = code }
                }
            }
        }
        if taken < arrivals.count {
            for a in arrivals[taken...] {
                metrics.rejected(proto, .overload, count: max(a.fixes.count, 1))
            }
        }
        return taken
    }

    /// Why `fix` is refused (an unregistered device, then the screen), or nil.
    private func refusal(of fix: Fix, receivedMs: Int64) -> (RejectReason, String)? {
        if !known(fix.device) { return (.unknownDevice, "device \(fix.device) is not registered") }
        return screen.check(fix, receivedAtMs: receivedMs)
    }

    /// Counts a refusal and logs it (bounded rate) with the received
    /// bytes' head in hex; `detail` is built only for the lines logged.
    func refuse(
        _ proto: String, _ reason: RejectReason, _ detail: @autoclosure () -> String,
        _ bytes: UnsafeBufferPointer<UInt8>?, _ source: ArrivalSource
    ) {
        metrics.rejected(proto, reason)
        let (ok, suppressed) = rejectLog.admit()
        guard ok else { return }
        var line = "rejected \(proto) \(source): \(reason.rawValue): \(detail())"
        if let bytes {
            let head = bytes.prefix(48).map { String($0, radix: 16).leftPadded(2) }.joined()
            line += " [\(bytes.count) bytes: \(head)\(bytes.count > 48 ? "…" : "")]"
        }
        if suppressed > 0 { line += " (\(suppressed) similar lines suppressed)" }
        logger.warning("\(line)")
    }
}

extension String {
    func leftPadded(_ n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}

/// Where an arrival came from, as the door's log lines name it.
enum ArrivalSource: Sendable, CustomStringConvertible {
    /// A UDP datagram from this address.
    case datagram(PeerAddress)
    /// An HTTP request from this peer (its IP address as text).
    case request(String)
    /// A TCP connection from this peer (`ip:port`), speaking for a device once it said which.
    case connection(String, device: String?)
    /// A fix a format held back and released later (NMEA's RMC without its GGA).
    case held

    /// The sender's address without its port: what per-source budgets
    /// count; nil for a held fix (its sender is no longer known: only the
    /// total budget counts it).
    var address: String? {
        switch self {
        case .datagram(let a): a.ip
        case .request(let peer): peer.isEmpty ? "?" : peer
        case .connection(let peer, _):
            peer.hasPrefix("[")
                ? String(peer.prefix { $0 != "]" }.dropFirst())
                : String(peer.prefix { $0 != ":" })
        case .held: nil
        }
    }

    var description: String {
        switch self {
        case .datagram(let a): "datagram from \(a)"
        case .request(let peer): "request from \(peer.isEmpty ? "?" : peer)"
        case .connection(let peer, let device):
            "connection from \(peer)" + (device.map { " (device \($0))" } ?? "")
        case .held: "held fix"
        }
    }
}

/// What the door made of one unit a transport received.
enum Admission: Sendable {
    /// Refused whole: nothing kept, nothing answered (the sender resends);
    /// the first reason and its detail.
    case refused(RejectReason, String)
    /// Screened: its passing fixes (maybe none, when a reply is still owed
    /// for refused ones) and how its sender is answered.
    case admitted(Arrival)
}
