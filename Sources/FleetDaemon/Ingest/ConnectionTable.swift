import NIOCore
import Synchronization

/// The TCP door's connections, across its protocols and event loops: how
/// many are open in total and from each address (the limits a flood
/// pushes against), and which connection speaks for each device, so that
/// a device that reconnects replaces its old connection (a dead one is
/// otherwise held until the idle timeout).
final class ConnectionTable: Sendable {
    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
        var byDevice: [String: any Channel] = [:]
        var all: [ObjectIdentifier: any Channel] = [:]
    }
    private let state = Mutex(State())
    let maxTotal: Int
    let maxPerAddress: Int

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Counts a new connection from `address`; nil when it is taken, else
    /// why it is refused (it is then not counted).
    func open(_ channel: any Channel, from address: String) -> String? {
        state.withLock { s in
            if s.total >= maxTotal { return "\(s.total) connections open (tcp.max_connections)" }
            let n = s.byAddress[address, default: 0]
            if n >= maxPerAddress {
                return "\(n) connections open from \(address) (tcp.max_connections_per_address)"
            }
            s.total += 1
            s.byAddress[address] = n + 1
            s.all[ObjectIdentifier(channel)] = channel
            return nil
        }
    }

    /// `channel` now speaks for `device`: the connection that did before
    /// (a reconnecting device's old one), to be closed, if any.
    func claim(_ device: String, by channel: any Channel) -> (any Channel)? {
        state.withLock { s in
            let old = s.byDevice.updateValue(channel, forKey: device)
            return old.flatMap { $0 === channel ? nil : $0 }
        }
    }

    /// A connection from `address` closed (speaking for `device`, if it did).
    func close(from address: String, device: String?, channel: any Channel) {
        state.withLock { s in
            s.total -= 1
            let n = s.byAddress[address, default: 1] - 1
            s.byAddress[address] = n > 0 ? n : nil
            if let device, s.byDevice[device] === channel { s.byDevice[device] = nil }
            s.all[ObjectIdentifier(channel)] = nil
        }
    }

    /// Closes every connection (shutdown, once nothing more is committed).
    func closeAll() {
        for c in state.withLock({ Array($0.all.values) }) { c.close(promise: nil) }
    }

    /// Connections open now.
    var count: Int { state.withLock { $0.total } }

    /// The connection speaking for `device` now, if any.
    func channel(of device: String) -> (any Channel)? { state.withLock { $0.byDevice[device] } }
}
