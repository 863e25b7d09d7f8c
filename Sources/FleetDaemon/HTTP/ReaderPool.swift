import FleetStorage
import Synchronization

/// Several store readers (each its own connection), handed out in turn so
/// that API requests read in parallel. A reader is safe to share (a backend
/// serialises its own connection), so more requests than readers simply
/// queue on one; the pool forwards nothing: a query added to `StoreReading`
/// needs no change here.
final class ReaderPool: Sendable {
    private let readers: [any StoreReading]
    private let next = Atomic<Int>(0)

    /// `count` readers from `store` (made before the writer thread starts).
    init(store: any Store, count: Int) throws(StoreError) {
        var r: [any StoreReading] = []
        for _ in 0..<max(count, 1) { r.append(try store.makeReader()) }
        readers = r
    }

    /// The next reader in turn.
    func reader() -> any StoreReading {
        readers[next.add(1, ordering: .relaxed).oldValue % readers.count]
    }
}
