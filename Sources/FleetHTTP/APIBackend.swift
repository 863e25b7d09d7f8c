import FleetGeo
import FleetModel
import FleetProtocols
import FleetStorage

/// What the HTTP server needs of the daemon, and nothing more: the daemon
/// implements it over its stages and store, tests over anything else.
public protocol APIBackend: Sendable {
    /// Readers for API requests: thread-safe, each read a consistent
    /// snapshot that never blocks the writer. Calls block: the server makes
    /// them off its event loops.
    var reader: any StoreReading { get }

    /// What `fleetctl status --json` shows, now.
    func status() -> DaemonStatus

    /// Nil when fleetd is ready to serve (fences loaded, storage working);
    /// else why not, for `/readyz`.
    func notReady() -> String?

    /// Runs `change` with the store on the writer, between commits; returns
    /// its result. Throws `StoreError` when it fails, `APIUnavailable` when
    /// the daemon is stopping.
    func change<T: Sendable>(_ change: @escaping @Sendable (any Store) throws(StoreError) -> T)
        async throws -> T

    /// Runs `change` as `change` does, then, in the same job, puts the
    /// webhook subscriptions it left in force to work: the next commit
    /// writes the outbox by them, and the deliveries follow them.
    func changeWebhooks<T: Sendable>(
        _ change: @escaping @Sendable (any Store) throws(StoreError) -> T
    ) async throws -> T

    /// The trips under way that `filter` selects, as of the last commit, by
    /// start time: records with `open` set (no id, no end fence), their
    /// start's fences listed against the fences in force (a fence look-up
    /// each: called off the event loops).
    func tripsUnderWay(_ filter: TripFilter) -> [TripRecord]

    /// The vehicle that last read driver's key `key` (a Teltonika iButton),
    /// as of the last commit; nil when none holds it (or this backend does
    /// not know).
    func vehicle(drivenBy key: String) -> String?

    /// The loaded fences file's GeoJSON text ("" when none is loaded).
    func fencesDocument() -> [UInt8]

    /// Validates `document` exactly as the fences file is validated; when
    /// valid, writes it to the fences file atomically and loads it as
    /// SIGHUP does. Returns the problems (empty: replaced and loaded), or
    /// throws when it cannot be written.
    func replaceFences(_ document: [UInt8]) async throws -> [FenceProblem]

    /// What one request of a tracker protocol over HTTP (OsmAnd) decoded
    /// to, `proto`'s `WireFormat` having read it: screened at the daemon's
    /// door as datagrams are, queued, and answered once committed (or
    /// refused, or not taken). A decoding refused whole comes back
    /// `.refused` with its reason, counted like any refusal. `peer` names
    /// the sender in logs.
    func ingest(
        _ decoding: WireDecoding, proto: TrackerProtocol, receivedMs: Int64, peer: String
    ) async -> IngestOutcome

    /// Queues `command` for `device` on behalf of `actor`: stored, then
    /// sent over the device's TCP connection when it has one.
    func queueCommand(device: String, command: CommandRequest, actor: String) async throws
        -> CommandOutcome

    /// The daemon's metrics in the Prometheus text format (`GET
    /// /metrics`); nil when this backend keeps none.
    func metricsText() async -> String?

    /// One request answered: `route` is its pattern (`/api/v1/devices/{id}`,
    /// or `unmatched`), counted by the daemon for `/metrics`.
    func served(route: String, method: String, status: Int)
}

extension APIBackend {
    public func vehicle(drivenBy key: String) -> String? { nil }
    public func metricsText() async -> String? { nil }
    public func served(route: String, method: String, status: Int) {}
}

/// What became of one position offered through HTTP.
/// A command as the API takes it.
public enum CommandRequest: Sendable, Equatable {
    /// The device's own command text.
    case text(String)
    /// Switch digital output `index` on or off (an immobiliser relay).
    case output(index: Int, on: Bool)
}

/// What became of a command the API was given.
public enum CommandOutcome: Sendable, Equatable {
    /// Stored (status `queued`), sent once the device is connected.
    case queued(CommandRecord)
    /// No such device (neither registered nor heard from).
    case unknownDevice
    /// The device cannot take it: why.
    case refused(String)
}

public enum IngestOutcome: Sendable, Equatable {
    /// Stored: the sender may forget it.
    case committed
    /// Refused by screening, with the reason and a detail.
    case refused(RejectReason, String)
    /// Not taken (queue full, or stopping): the sender should retry.
    case busy
    /// Taken but not committed within the wait (storage failing): the
    /// sender should retry; a repeat is stored once.
    case timedOut
}

/// The daemon is stopping: no more changes are taken.
public struct APIUnavailable: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
