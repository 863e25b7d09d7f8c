import FleetGeo
import FleetHTTP
import FleetProtocols
import FleetStorage
import Synchronization

/// The HTTP side's pieces while the daemon assembles itself: the server
/// exists before the stages (its hub is a commit sink), the backend after
/// them, so the server reaches the backend through a slot set once.
final class APIParts: Sendable {
    let readers: ReaderPool
    let backend: BackendSlot
    /// How many of the HTTP servers have bound their sockets.
    let bound = Atomic<Int>(0)
    /// `http 127.0.0.1:8080`, `osmand 127.0.0.1:5055`, as each binds.
    let addresses = Mutex<[String]>([])
    private let slot = Mutex<APIServer?>(nil)

    init(readers: ReaderPool) {
        self.readers = readers
        self.backend = BackendSlot()
    }

    var server: APIServer {
        get { slot.withLock { $0! } }
        set { slot.withLock { $0 = newValue } }
    }
}

/// An `APIBackend` that forwards to the daemon's, once set (before any
/// request can arrive: the servers start after the stages).
final class BackendSlot: APIBackend {
    private let inner = Mutex<DaemonAPI?>(nil)

    func set(_ backend: DaemonAPI?) { inner.withLock { $0 = backend } }

    private var b: DaemonAPI { inner.withLock { $0! } }

    var reader: any StoreReading { b.reader }
    func status() -> DaemonStatus { b.status() }
    func notReady() -> String? { b.notReady() }
    func change<T: Sendable>(_ change: @escaping @Sendable (any Store) throws(StoreError) -> T)
        async throws -> T
    {
        try await b.change(change)
    }
    func fencesDocument() -> [UInt8] { b.fencesDocument() }
    func replaceFences(_ document: [UInt8]) async throws -> [FenceProblem] {
        try await b.replaceFences(document)
    }
    func ingest(_ fix: Fix, receivedMs: Int64, peer: String) async -> IngestOutcome {
        await b.ingest(fix, receivedMs: receivedMs, peer: peer)
    }
}
