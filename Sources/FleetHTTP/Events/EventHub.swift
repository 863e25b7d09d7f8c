import FleetConfig
import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Synchronization

/// The live stream's fan-out. The commit stage tells it of each commit
/// (`publish`, on the writer thread: it only appends to a queue and wakes
/// the hub's task, so the writer never waits on a client). The hub's task
/// runs in rounds, at most one every `roundMs`: it formats each event once
/// and gives every subscriber one chunk of the events it admits (the same
/// buffer for every subscriber that takes everything), so a client costs
/// one write a round, however many alerts the round holds. A subscriber
/// more than `buffer` events behind is too slow and is ended (its client
/// reconnects with `Last-Event-ID` and catches up from the database).
/// Positions: each device's newest committed position, at most once a
/// second per device and at most `positionsPerS` in all (a budget: while
/// more are due, those waiting longest go first). Alerts as
/// `alerts_compact` rows at most `alertsPerS` a second (`CompactAlerts`:
/// the rest counted as skipped). A keep-alive comment goes to everyone every
/// `keepaliveS`.
///
/// Positions are held by device (`LivePositions`: the writer keeps each
/// device's newest there), so they take one slot per device however long
/// the hub waits. Alerts are queued, and the queue is bounded: the hub may
/// run in the background (`APIServer`'s `hubExecutor`), and when ingest
/// takes every core it falls behind. Past `pendingLimit` alerts the queue
/// keeps what the compact streams' next round would send of it (every
/// alarm and the newest others, at most `alertsPerS` or half the bound;
/// the rest counted in their `skipped`: `ShedAlerts`), and every stream
/// that takes each alert is ended at once, like a stream that is too slow:
/// its client reconnects and reads the alerts it missed from the database.
/// So a console (`alerts=compact`) stays connected through a storm instead
/// of reconnecting to a catch-up of every alert since. If the alarms alone
/// pass the bound, every stream of alerts is ended and the queue dropped.
public final class EventHub: Sendable {
    final class Subscriber: Sendable {
        let filter: EventFilter
        let continuation: AsyncStream<LiveChunk>.Continuation
        let id: Int
        /// Who holds it (`Identity.actor`), counted against `maxPerOwner`.
        let owner: String
        /// Events handed to it and not yet written to its client.
        let queued = Atomic<Int>(0)
        init(
            id: Int, filter: EventFilter, owner: String,
            continuation: AsyncStream<LiveChunk>.Continuation
        ) {
            self.id = id
            self.filter = filter
            self.owner = owner
            self.continuation = continuation
        }
    }

    /// The least time between two fan-out rounds, ms: what a round may
    /// add to an event's latency, against one write per client per commit.
    static let roundMs = 20

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        /// Streams open per owner (owners with none left out).
        var perOwner: [String: Int] = [:]
        var nextId = 0
        var closed = false
        var wantPositions = 0
        /// Subscribers that take positions as batches.
        var wantBatches = 0
        /// Subscribers that take positions as compact batches.
        var wantCompact = 0
        /// Subscribers that take alerts, and of them those that take them
        /// as compact batches.
        var wantAlerts = 0
        var wantCompactAlerts = 0
        /// Subscribers limited to groups (what `groups` is kept fresh for).
        var grouped = 0
        /// Commits' alerts not yet fanned out.
        var pending: [[AlertRecord]] = []
        /// The alerts in `pending`.
        var pendingAlerts = 0
        /// Each device's newest position and last send, while some client
        /// takes positions.
        var live = LivePositions()
        /// Streams ended for being more than `buffer` events behind.
        var endedSlow = 0
        /// Streams ended because the hub's queue passed `pendingLimit`.
        var endedBehind = 0
        /// Alerts shed from `pending` for the compact streams while behind.
        var shed = ShedAlerts()

        /// Sheds `pending` down to what a compact stream's round would
        /// send of it (`CompactAlerts.keep`: every alarm, then the newest
        /// others, `most` in all), the rest counted in `shed`.
        mutating func shedPending(keep most: Int) {
            guard pendingAlerts > most else { return }
            let kept = CompactAlerts.keep(pending, most: most) { shed.add($0) }
            pending = kept.isEmpty ? [] : [kept]
            pendingAlerts = kept.count
        }

        /// Takes subscriber `id` out (its stream is ending); nil if gone already.
        mutating func remove(_ id: Int) -> Subscriber? {
            guard let sub = subscribers.removeValue(forKey: id) else { return nil }
            let left = perOwner[sub.owner, default: 1] - 1
            perOwner[sub.owner] = left > 0 ? left : nil
            if sub.filter.positions {
                wantPositions -= 1
                if wantPositions == 0 { live.clear() }
            }
            if sub.filter.batchesPositions { wantBatches -= 1 }
            if sub.filter.compactsPositions { wantCompact -= 1 }
            if sub.filter.alerts { wantAlerts -= 1 }
            if sub.filter.compactsAlerts { wantCompactAlerts -= 1 }
            if case .groups = sub.filter.scope { grouped -= 1 }
            return sub
        }
        /// Command status changes not yet fanned out.
        var commands: [CommandRecord] = []

        /// Some client takes positions as full records (`position` events
        /// or the `positions` batch), so they are held whole.
        var wantWhole: Bool { wantPositions > wantCompact }
    }

    private let state = Mutex(State())
    /// Devices' groups, for streams of users limited to groups (the
    /// daemon's one record of them).
    public let groups: DeviceGroups
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    let maxStreams: Int
    let maxPerOwner: Int
    let buffer: Int
    let keepaliveS: Int
    /// The most positions a second (`http.stream_positions_per_s`).
    let positionsPerS: Int
    /// The most `alerts_compact` rows a second (`http.stream_alerts_per_s`).
    let alertsPerS: Int
    /// The most alerts the hub queues: 2 × `buffer`. Past it the queue is
    /// shed for the compact streams and the streams of `alert` events are
    /// ended (`publish`).
    let pendingLimit: Int

    /// A hub bounded as `settings` say (`maxStreams`, `streamBuffer`,
    /// `keepaliveS`, `streamPositionsPerS`, `streamAlertsPerS`).
    public convenience init(settings: HTTPSettings, groups: DeviceGroups = DeviceGroups()) {
        self.init(
            maxStreams: settings.maxStreams, maxPerOwner: settings.maxStreamsPerUser,
            buffer: settings.streamBuffer, keepaliveS: settings.keepaliveS,
            positionsPerS: settings.streamPositionsPerS, alertsPerS: settings.streamAlertsPerS,
            groups: groups)
    }

    public init(
        maxStreams: Int, maxPerOwner: Int, buffer: Int, keepaliveS: Int,
        positionsPerS: Int = HTTPSettings().streamPositionsPerS,
        alertsPerS: Int = HTTPSettings().streamAlertsPerS,
        groups: DeviceGroups = DeviceGroups()
    ) {
        self.positionsPerS = positionsPerS
        self.alertsPerS = alertsPerS
        self.groups = groups
        self.maxStreams = maxStreams
        self.maxPerOwner = maxPerOwner
        self.buffer = buffer
        self.keepaliveS = keepaliveS
        pendingLimit = 2 * buffer
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Streams open now.
    public var streams: Int { state.withLock { $0.subscribers.count } }

    /// Streams open for users limited to groups.
    public var groupedStreams: Int { state.withLock { $0.grouped } }

    /// What `GET /metrics` shows of the streams.
    public struct Counts: Sendable, Equatable {
        /// Streams open now.
        public var open: Int
        /// Streams ended for being more than `http.stream_buffer` events behind.
        public var endedSlow: Int
        /// Streams ended because the hub fell `pendingLimit` events behind.
        public var endedBehind: Int
        /// Devices whose newest position is not sent yet (held back by
        /// the once-a-second rule or by `http.stream_positions_per_s`).
        public var positionsWaiting: Int = 0
    }

    public var counts: Counts {
        state.withLock {
            Counts(
                open: $0.subscribers.count, endedSlow: $0.endedSlow, endedBehind: $0.endedBehind,
                positionsWaiting: $0.live.waitingCount)
        }
    }

    /// A committed batch: its alerts as stored and its positions. Quick and
    /// non-blocking (called on the writer thread): with a client of
    /// positions open, each position costs a dictionary look-up
    /// (`LivePositions.hold`). Past `pendingLimit` alerts queued, the queue
    /// is shed for the compact streams and the streams of `alert` events
    /// are ended (see the type's note).
    public func publish(alerts: [AlertRecord], positions: [PositionRow]) {
        var ended: [Subscriber] = []
        let queued = state.withLock { s -> Bool in
            guard !s.subscribers.isEmpty, !s.closed else { return false }
            guard !alerts.isEmpty || s.wantPositions > 0 else { return false }
            if s.wantPositions > 0 {
                let whole = s.wantWhole
                for p in positions { s.live.hold(p, whole: whole) }
            }
            s.pendingAlerts += alerts.count
            if !alerts.isEmpty { s.pending.append(alerts) }
            if s.pendingAlerts > pendingLimit {
                // Behind. The compact streams would send every alarm and the
                // newest others: the queue keeps those, the rest are counted.
                // The streams that take each alert end (their clients catch
                // up from the database), and every stream of alerts if the
                // alarms alone pass the bound.
                if s.wantCompactAlerts > 0 {
                    s.shedPending(keep: min(alertsPerS, pendingLimit / 2))
                }
                let all = s.pendingAlerts > pendingLimit
                ended = s.subscribers.values.filter {
                    $0.filter.alerts && (all || !$0.filter.compactsAlerts)
                }
                for sub in ended { _ = s.remove(sub.id) }
                s.endedBehind += ended.count
                if s.wantAlerts == 0 {
                    s.pending.removeAll()
                    s.pendingAlerts = 0
                    s.shed = ShedAlerts()
                }
            }
            return true
        }
        for sub in ended { sub.continuation.finish() }
        if queued { wake.yield() }
    }

    /// A command's new status (queued, sent, answered, expired, failed):
    /// the `command` event. Quick and non-blocking.
    public func publish(command: CommandRecord) {
        let queued = state.withLock { s -> Bool in
            guard !s.subscribers.isEmpty, !s.closed else { return false }
            s.commands.append(command)
            return true
        }
        if queued { wake.yield() }
    }

    /// Why a stream was not opened.
    enum Refusal: Error, Equatable {
        /// `maxStreams` are open (or the hub is closed).
        case full
        /// The owner holds `maxPerOwner` already.
        case ownerFull
    }

    /// A new subscriber held by `owner`: its chunks of events, and the
    /// subscriber, whose `queued` the reader lowers by each chunk's count
    /// once written. Refused when `maxStreams` are open, the hub is closed,
    /// or `owner` holds `maxPerOwner`.
    func subscribe(_ filter: EventFilter, owner: String) -> Result<
        (subscriber: Subscriber, events: AsyncStream<LiveChunk>), Refusal
    > {
        let (events, continuation) = AsyncStream.makeStream(
            of: LiveChunk.self, bufferingPolicy: .unbounded)
        let made = state.withLock { s -> Result<Subscriber, Refusal> in
            guard !s.closed, s.subscribers.count < maxStreams else { return .failure(.full) }
            guard s.perOwner[owner, default: 0] < maxPerOwner else {
                return .failure(.ownerFull)
            }
            s.perOwner[owner, default: 0] += 1
            s.nextId += 1
            let sub = Subscriber(
                id: s.nextId, filter: filter, owner: owner, continuation: continuation)
            s.subscribers[s.nextId] = sub
            if filter.positions { s.wantPositions += 1 }
            if filter.batchesPositions { s.wantBatches += 1 }
            if filter.compactsPositions { s.wantCompact += 1 }
            if filter.alerts { s.wantAlerts += 1 }
            if filter.compactsAlerts { s.wantCompactAlerts += 1 }
            if case .groups = filter.scope { s.grouped += 1 }
            return .success(sub)
        }
        switch made {
        case .failure(let refusal):
            continuation.finish()
            return .failure(refusal)
        case .success(let sub):
            let id = sub.id
            continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
            return .success((sub, events))
        }
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { s in _ = s.remove(id) }
    }

    /// Ends every stream and refuses new ones (the server is stopping).
    public func close() {
        let subs = state.withLock { s -> [Subscriber] in
            s.closed = true
            return Array(s.subscribers.values)
        }
        for sub in subs { sub.continuation.finish() }
        wake.finish()
    }

    /// One round's `events` to every subscriber: the shared chunks for
    /// those that take every alert (with positions in one of their three
    /// forms, or none), one of its own for each other.
    private func fanOut(_ events: [LiveEvent], to subs: [Subscriber]) {
        struct Form: Hashable {
            var positions: LiveEvent.Kind?
            var alerts: LiveEvent.Kind
        }
        var shared: [Form: LiveChunk] = [:]
        func sharedChunk(positions kind: LiveEvent.Kind?, alerts: LiveEvent.Kind) -> LiveChunk {
            let form = Form(positions: kind, alerts: alerts)
            if let made = shared[form] { return made }
            let made = LiveChunk(
                events.filter {
                    $0.kind.isPosition ? $0.kind == kind : !$0.kind.isAlert || $0.kind == alerts
                })
            shared[form] = made
            return made
        }
        for sub in subs {
            let chunk: LiveChunk
            let alerts: LiveEvent.Kind = sub.filter.compactsAlerts ? .compactAlerts : .alert
            if sub.filter.compactsPositions {
                chunk = sharedChunk(positions: .compactPositions, alerts: alerts)
            } else if sub.filter.batchesPositions {
                chunk = sharedChunk(positions: .positions, alerts: alerts)
            } else if sub.filter.takesAllAlerts {
                chunk = sharedChunk(
                    positions: sub.filter.positions ? .position : nil, alerts: alerts)
            } else {
                chunk = LiveChunk(events.filter { sub.filter.admits($0, groups: groups) })
            }
            guard !chunk.events.isEmpty else { continue }
            // A stream with nothing unsent always takes the round, however
            // big (a whole fleet's positions may outweigh the buffer).
            let (before, after) = sub.queued.add(chunk.weight, ordering: .relaxed)
            if before > 0, after > buffer {
                // Too slow: ended; its client catches up on reconnect.
                state.withLock { s in
                    if s.remove(sub.id) != nil { s.endedSlow += 1 }
                }
                sub.continuation.finish()
                continue
            }
            sub.continuation.yield(chunk)
        }
    }

    /// The hub's task: fans out commits as they come, positions once a
    /// second, keep-alives every `keepaliveS`. Returns once closed.
    func run() async {
        var positionBudget = RateBudget(perS: positionsPerS)
        var alertBudget = RateBudget(perS: alertsPerS)
        var lastPing = Date()
        var lastFlush = Date()
        await withTaskGroup(of: Void.self) { group in
            // A tick a second, to flush held positions and send keep-alives.
            group.addTask { [wake] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    wake.yield()
                }
            }
            for await _ in wakes {
                // Positions at most every 200 ms: each device's newest, at most once a second.
                let now = Date()
                let nowMs = Int64(now.timeIntervalSince1970 * 1000)
                let flush = now.timeIntervalSince(lastFlush) >= 0.2
                if flush { lastFlush = now }
                let most = flush ? positionBudget.available(nowMs: nowMs) : 0
                // Positions one event each only for subscribers that take them so,
                // batched only for those that take batches.
                let (pending, shed, commands, subs, singles, batches, compacts, due, alertForms) =
                    state.withLock {
                        s in
                        defer {
                            s.pending.removeAll(keepingCapacity: true)
                            s.pendingAlerts = 0
                            s.shed = ShedAlerts()
                            s.commands.removeAll()
                        }
                        let singles = s.wantPositions > s.wantBatches + s.wantCompact
                        var due = LivePositions.Due()
                        if flush && s.wantPositions > 0 {
                            due = s.live.take(
                                nowMs: nowMs, most: most, wantWhole: s.wantWhole,
                                wantCompact: s.wantCompact > 0)
                        }
                        // Alerts one event each for the subscribers that do not take them batched.
                        let alertForms = (
                            singles: s.wantAlerts > s.wantCompactAlerts,
                            compact: s.wantCompactAlerts > 0
                        )
                        return (
                            s.pending, s.shed, s.commands, Array(s.subscribers.values), singles,
                            s.wantBatches > 0, s.wantCompact > 0, due, alertForms
                        )
                    }
                var events: [LiveEvent] = commands.map { c in
                    LiveEvent(
                        kind: .command, id: 0, device: c.device, type: nil, fence: nil,
                        json: RecordCoding.line(c))
                }
                if alertForms.singles {
                    for alerts in pending {
                        for a in alerts {
                            events.append(
                                LiveEvent(
                                    kind: .alert, id: a.id, device: a.device, type: a.type,
                                    fence: a.fence, json: a.jsonLine))
                        }
                    }
                }
                if alertForms.compact,
                    let batch = CompactAlerts.event(
                        Array(pending.joined()), most: alertBudget.available(nowMs: nowMs),
                        shed: shed)
                {
                    alertBudget.spend(batch.alertBatch?.rows.count ?? 0)
                    events.append(batch)
                }
                positionBudget.spend(due.count)
                events += due.events(singles: singles, batches: batches, compacts: compacts)
                if now.timeIntervalSince(lastPing) >= Double(keepaliveS) {
                    lastPing = now
                    events.append(.ping)
                }
                if !events.isEmpty { fanOut(events, to: subs) }
                // Rounds at most every `roundMs`: what commits meanwhile waits for the next.
                try? await Task.sleep(for: .milliseconds(Self.roundMs))
            }
            group.cancelAll()
        }
    }
}
