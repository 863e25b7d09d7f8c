import FleetGeo
import FleetHTTP
import FleetModel
import FleetProtocols
import FleetStorage
import Foundation
import Synchronization

/// The daemon as the HTTP server sees it (`APIBackend`): reads through a
/// pool of store readers, changes through the commit stage's jobs (between
/// commits, on the writer: no second writer on the store), phones' fixes
/// through the door and the queue like any datagram, fences through the
/// tracking stage as SIGHUP loads them.
final class DaemonAPI: APIBackend {
    private let readers: ReaderPool
    /// A reader of the pool, the next in turn at each use.
    var reader: any StoreReading { readers.reader() }
    private let commit: CommitStage
    private let tracking: TrackingStage
    private let door: Door
    /// Commands to devices.
    let desk: CommandDesk
    private let reporter: StatusReporter
    private let metrics: Metrics
    private let fencesFile: String
    /// What an uploaded fences document may hold (`[geofences]`).
    private let fenceLimits: FenceLimits
    private let board: TripBoard
    private let drivers: DriverBoard
    /// The loaded fences file's text (what `GET /fences` returns).
    let fences: Mutex<[UInt8]>
    /// Set once every service has started.
    let ready = Atomic<Bool>(false)
    /// How many of the HTTP servers have bound their sockets, and where
    /// (`http 127.0.0.1:8080`, `osmand 127.0.0.1:5055`).
    let bound = Atomic<Int>(0)
    let addresses = Mutex<[String]>([])
    /// Fence replacements, one at a time.
    private let fenceQueue = DispatchQueue(label: "fleetd.fences")
    /// How long a phone's request waits for its commit, seconds.
    static let commitWaitS = 30.0
    /// `GET /metrics`'s renderer, and the HTTP answers counted by "route method status".
    private let exporter: MetricsExporter
    private let httpServed = Mutex<[String: Int]>([:])
    /// The live stream's hub (its streams are counted in `/metrics`).
    private let hub: EventHub?

    init(
        readers: ReaderPool, commit: CommitStage, tracking: TrackingStage, door: Door,
        desk: CommandDesk, status: StatusReporter, metrics: Metrics, board: TripBoard,
        drivers: DriverBoard, fencesFile: String, fenceLimits: FenceLimits = FenceLimits(),
        fencesText: [UInt8], hub: EventHub? = nil
    ) {
        self.hub = hub
        self.desk = desk
        self.board = board
        self.drivers = drivers
        self.readers = readers
        self.commit = commit
        self.tracking = tracking
        self.door = door
        self.reporter = status
        self.metrics = metrics
        self.exporter = MetricsExporter(metrics: metrics)
        self.fencesFile = fencesFile
        self.fenceLimits = fenceLimits
        fences = Mutex(fencesText)
    }

    func status() -> DaemonStatus { reporter.current() }

    func served(route: String, method: String, status: Int) {
        httpServed.withLock { $0["\(route) \(method) \(status)", default: 0] += 1 }
    }

    func metricsText() async -> String? {
        // The outboxes are read off the event loop (a store read).
        let reader = self.reader
        let hooks = try? await Blocking.run { [reader] () throws(StoreError) in
            try reader.webhookStatuses()
        }
        return exporter.render(
            MetricsExporter.Extra(
                webhooks: hooks, http: httpServed.withLock { $0 }, streams: hub?.counts,
                nowMs: WallClock.system.nowMs()))
    }

    func notReady() -> String? {
        if !ready.load(ordering: .relaxed) { return "starting (or stopping)" }
        if let error = metrics.snapshot().writerError { return "storage failing: \(error)" }
        return nil
    }

    func change<T: Sendable>(_ change: @escaping @Sendable (any Store) throws(StoreError) -> T)
        async throws -> T
    {
        if commit.stopping.load(ordering: .relaxed) {
            throw APIUnavailable("fleetd is stopping")
        }
        return try await commit.perform(change)
    }

    func changeWebhooks<T: Sendable>(
        _ change: @escaping @Sendable (any Store) throws(StoreError) -> T
    ) async throws -> T {
        try await self.change { [commit] store throws(StoreError) in
            let result = try change(store)
            try commit.reloadWebhooks(store)
            return result
        }
    }

    func tripsUnderWay(_ filter: TripFilter) -> [TripRecord] { board.records(filter) }

    /// The trips under way list their starts' fences against `index` from now on.
    func replaceFences(_ index: FenceIndex) { board.replaceFences(index) }

    func vehicle(drivenBy key: String) -> String? { drivers.vehicle(drivenBy: key) }

    func fencesDocument() -> [UInt8] { fences.withLock { $0 } }

    func replaceFences(_ document: [UInt8]) async throws -> [FenceProblem] {
        let file = fencesFile
        let result: Result<[FenceProblem], any Error> = await withCheckedContinuation { c in
            fenceQueue.async { [self] in
                c.resume(returning: Result { try install(document, file: file) })
            }
        }
        return try result.get()
    }

    /// Validates (the document, then `fenceLimits`), builds the index,
    /// then writes the file atomically (temporary file, fsync, rename) and
    /// swaps the index in: a document refused or an index that cannot be
    /// built leaves the file and the fences in use as they were.
    private func install(_ document: [UInt8], file: String) throws -> [FenceProblem] {
        let loaded: [Fence]
        do {
            loaded = try GeoJSONFenceLoader.load(document, file: "request body")
        } catch {
            return error.problems
        }
        let over = fenceLimits.problems(loaded)
        guard over.isEmpty else { return over }
        guard !file.isEmpty else {
            return [
                FenceProblem(
                    featureIndex: nil, id: nil,
                    message:
                        "no fences file is configured (geofences.file or geofences.uploads): nowhere to keep them"
                )
            ]
        }
        let index = FenceIndex(fences: loaded)
        let tmp = file + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw FencesNotWritten(file: tmp, errno: errno) }
        let written = document.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == document.count, synced == 0, rename(tmp, file) == 0 else {
            let e = errno
            unlink(tmp)
            throw FencesNotWritten(file: file, errno: e)
        }
        tracking.replaceFences(index)
        fences.withLock { $0 = document }
        return []
    }

    /// The HTTP transport's side of the ingest seam: one request's
    /// decoding goes through the door like any datagram, answered by a
    /// `CommitWaiter` this task awaits (bounded by `commitWaitS`).
    func ingest(
        _ decoding: WireDecoding, proto: TrackerProtocol, receivedMs: Int64, peer: String
    ) async -> IngestOutcome {
        guard let format = proto.makeFormat() else {
            return .refused(.badField, "\(proto.key) does not arrive by HTTP")
        }
        metrics.received(format.name, datagrams: 1, fixes: decoding.fixes.count)
        let waiter = CommitWaiter()
        let admission = door.admit(
            decoding, format: format, bytes: nil, from: .request(peer), answer: .waiter(waiter),
            receivedMs: receivedMs)
        switch admission {
        case .refused(let reason, let detail):
            return .refused(reason, detail)
        case .admitted(let arrival):
            if arrival.fixes.isEmpty { return .committed }  // nothing to store
            guard door.offer([arrival], proto: format.name) == 1 else { return .busy }
            return await waiter.wait(timeoutS: Self.commitWaitS) ? .committed : .timedOut
        }
    }
}

extension DaemonAPI {
    /// The API's side of commands: a typed command made the device's own
    /// text for the protocol it was heard over, then queued by the desk.
    func queueCommand(device: String, command: CommandRequest, actor: String) async throws
        -> CommandOutcome
    {
        if let why = desk.refusal(for: device) { return .refused(why) }
        let text: String
        switch command {
        case .text(let t):
            text = t
        case .output(let index, let on):
            guard let p = desk.protocolOf(device) else {
                return .refused(
                    "device \(device) has not been heard from this run, so its protocol is not known: send its own command text"
                )
            }
            guard let t = p.outputCommand(index: index, on: on) else {
                return .refused("\(p.key) has no command for output \(index)")
            }
            text = t
        }
        guard let stored = try await desk.queue(device: device, text: text, actor: actor) else {
            return .unknownDevice
        }
        return .queued(stored)
    }
}

/// The fences file could not be replaced.
struct FencesNotWritten: Error, CustomStringConvertible {
    let file: String
    let errno: Int32
    var description: String { "cannot write \(file): \(String(cString: strerror(errno)))" }
}
