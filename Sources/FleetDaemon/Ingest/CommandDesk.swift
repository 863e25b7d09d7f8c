import FleetModel
import FleetProtocols
import FleetStorage
import Foundation
import Logging
import NIOCore

/// Commands to devices, from the store to their TCP connections and back:
/// a command queued (by the API or `fleetctl`) is stored first, sent once
/// over its device's connection when it has one (at once, when the device
/// connects, or by the poll every 2 s), marked `sent`, and `answered` with
/// the device's reply (its oldest command sent and unanswered takes it);
/// what is not answered within `tcp.command_expiry_s` expires. Each change
/// is stored by the commit stage's writer and published to the live
/// stream.
///
/// Its bookkeeping lives on one serial queue of its own (reads of the
/// store block there, never on an event loop or the cooperative pool).
final class CommandDesk: @unchecked Sendable {
    private let work = DispatchQueue(label: "fleetd.commands")
    private let table: ConnectionTable
    private let commit: CommitStage
    private let reader: any StoreReading
    private let door: Door
    private let publish: @Sendable (CommandRecord) -> Void
    private let clock: WallClock
    /// How long a command waits for its answer, ms.
    let expiryMs: Int64
    private var timer: (any DispatchSourceTimer)?
    // On `work`:
    /// Handed to a connection, not yet written.
    private var handed: Set<Int64> = []
    /// Per device, the commands written and not answered, oldest first;
    /// and all of them (the poll may still read them as queued).
    private var unanswered: [String: [Int64]] = [:]
    private var written: Set<Int64> = []

    init(
        table: ConnectionTable, commit: CommitStage, reader: any StoreReading, door: Door,
        expiryS: Int, clock: WallClock = .system,
        publish: @escaping @Sendable (CommandRecord) -> Void
    ) {
        self.table = table
        self.commit = commit
        self.reader = reader
        self.door = door
        self.expiryMs = Int64(expiryS) * 1000
        self.clock = clock
        self.publish = publish
    }

    /// As a service of the daemon's group: the poll and the expiry.
    var service: ComponentService {
        ComponentService("commands", start: start, stop: stop)
    }

    private func start() {
        let t = DispatchSource.makeTimerSource(queue: work)
        t.setEventHandler { [self] in
            expire()
            deliver(device: nil)
        }
        t.schedule(deadline: .now() + 2, repeating: 2)
        t.resume()
        timer = t
    }

    private func stop() { timer?.cancel() }

    /// Why `device` cannot take commands, or nil: it was last heard over
    /// a protocol that carries none.
    func refusal(for device: String) -> String? {
        guard table.channel(of: device) == nil, let p = door.heardOver(device), !p.takesCommands
        else { return nil }
        return
            "device \(device) reports over \(p.key), which carries no commands (TCP doors do: teltonika_tcp, gt06, h02)"
    }

    /// The protocol `device` speaks now or was last heard over, if known.
    func protocolOf(_ device: String) -> TrackerProtocol? { door.heardOver(device) }

    /// Stores `text` for `device`, queued by `actor`; sends it if the
    /// device is connected. Nil when the device is not known.
    func queue(device: String, text: String, actor: String) async throws(StoreError)
        -> CommandRecord?
    {
        let now = clock.nowMs()
        let command = CommandRecord(
            device: device, text: text, actor: actor, queuedMs: now, expiresMs: now + expiryMs)
        let audit = AuditRecord(
            timeMs: now, actor: actor, action: "command.queue", target: device,
            detail: String(text.prefix(200)))
        let stored = try await commit.perform { store throws(StoreError) in
            try store.queueCommand(command, audit: audit)
        }
        if let stored {
            publish(stored)
            connected(device)
        }
        return stored
    }

    /// `device` has a connection (it just named itself): its queued commands go out.
    func connected(_ device: String) {
        work.async { [self] in deliver(device: device) }
    }

    /// Written on the device's connection (from its event loop).
    func sent(_ c: CommandRecord) {
        work.async { [self] in
            handed.remove(c.id)
            written.insert(c.id)
            unanswered[c.device, default: []].append(c.id)
            store(c.id, .sent, response: nil)
        }
    }

    /// Not written (the connection closed first): queued still, sent on the next one.
    func unsent(_ c: CommandRecord) {
        work.async { [self] in _ = handed.remove(c.id) }
    }

    /// The device answered `text` (from its event loop).
    func answered(_ device: String, text: String) {
        work.async { [self] in
            guard let id = unanswered[device]?.first else {
                door.logger.info(
                    "commands: \(device) answered with none outstanding: \(text.prefix(200))")
                return
            }
            unanswered[device]?.removeFirst()
            written.remove(id)
            store(id, .answered, response: String(text.prefix(4096)))
        }
    }

    /// On `work`: the queued commands of `device` (nil: of every device)
    /// whose device is connected, handed to its connection.
    private func deliver(device: String?) {
        let now = clock.nowMs()
        guard let queued = try? reader.commands(device: device, statuses: [.queued], limit: 1000)
        else { return }
        for c in queued.reversed()
        where !handed.contains(c.id) && !written.contains(c.id) && c.expiresMs > now {
            guard let channel = table.channel(of: c.device) else { continue }
            handed.insert(c.id)
            channel.pipeline.handler(type: StreamConnection.self).whenComplete { [self] result in
                switch result {
                case .success(let connection): connection.deliver(c)  // on its event loop
                case .failure: unsent(c)
                }
            }
        }
    }

    /// On `work`: expires what waited too long.
    private func expire() {
        let now = clock.nowMs()
        commit.schedule { [self] store in
            guard let gone = try? store.expireCommands(nowMs: now), !gone.isEmpty else { return }
            work.async { [self] in
                for c in gone {
                    unanswered[c.device]?.removeAll { $0 == c.id }
                    written.remove(c.id)
                }
            }
            for c in gone { publish(c) }
        }
    }

    /// Stores command `id`'s new status (on the writer thread) and publishes it.
    private func store(_ id: Int64, _ status: CommandStatus, response: String?) {
        let now = clock.nowMs()
        commit.schedule { [self] store in
            do {
                if let c = try store.updateCommand(
                    id: id, to: status, atMs: now, response: response)
                {
                    publish(c)
                }
            } catch {
                door.logger.warning(
                    "commands: command \(id) not marked \(status.rawValue): \(error)")
            }
        }
    }
}
