import FleetPostgres
import FleetSQLite
import FleetStorage
import FleetTestSupport
import Foundation
import Synchronization
import Testing

@testable import FleetPostgres

/// The storage backends the behaviour suite runs against.
enum BackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }
}

/// One fresh, empty database of a backend, and the ways fleetd and fleetctl
/// open it: the writer (`Store`), a reader, the administration.
struct Backend {
    let kind: BackendKind
    /// Where it is (a path, or a URL without password), for messages.
    let location: String
    private let makeStore: () throws -> any Store
    private let makeAdmin: () throws -> any StoreAdministration

    /// A new writer of this database (a second one is a restart).
    func store() throws -> any Store { try makeStore() }
    /// A new reader of this database.
    func reader() throws -> any StoreReading { try makeStore().makeReader() }
    /// The administration (users, tokens, the registry, webhook retries).
    func admin() throws -> any StoreAdministration { try makeAdmin() }

    /// A fresh database: an SQLite file in a new temporary folder, or a new
    /// database on the test process's own PostgreSQL server
    /// (`SharedPostgres`), started on first use. The server's start and
    /// the `CREATE DATABASE` wait on a thread of their own, not on the
    /// cooperative pool.
    static func fresh(_ kind: BackendKind) async throws -> Backend {
        switch kind {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("fleetd-behaviour-\(UUID().uuidString)/fleetd.db").path
            return Backend(
                kind: kind, location: path, makeStore: { try SQLiteStore(path: path) },
                makeAdmin: { try Credentials(path: path) })
        case .postgresql:
            let settings = try await offPool { try SharedPostgres.freshDatabase() }
            return Backend(
                kind: kind, location: settings.location,
                makeStore: { try PostgresStore(settings: settings) },
                makeAdmin: { try PostgresAdministration(settings: settings) })
        }
    }
}

/// The test process's PostgreSQL server (`scripts/pg-test-server.sh`, on a
/// free loopback port), started by the first test that needs it and
/// stopped when the process exits; each test gets a database of its own.
enum SharedPostgres {
    private static let started = Mutex<Result<PostgresServer, TestSupportError>?>(nil)
    private static let databases = Atomic<Int>(0)

    /// The server, started on first use (blocking for the few seconds
    /// `initdb` takes, once per process).
    static func server() throws -> PostgresServer {
        try started.withLock { slot in
            if slot == nil {
                do {
                    slot = .success(try PostgresServer())
                    atexit { SharedPostgres.stop() }
                } catch {
                    slot = .failure(TestSupportError("\(error)"))
                }
            }
            return try slot!.get()
        }
    }

    /// A new empty database on the server, as fleetd's settings name it.
    static func freshDatabase() throws -> PostgresSettings {
        let server = try server()
        let admin = try PostgresSettings(
            url: server.url, passwordFile: server.passwordFile, poolSize: 1,
            statementTimeoutMs: 30_000)
        let name = "behaviour_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
        let link = PGLink(admin, name: "behaviour suite")
        try link.session("cannot create database \(name)") { s in
            _ = try s.run("CREATE DATABASE \(name)")
        }
        link.close()
        return try PostgresSettings(
            url: server.url(database: name), passwordFile: server.passwordFile, poolSize: 2,
            statementTimeoutMs: 30_000)
    }

    private static func stop() {
        started.withLock { slot in
            if case .success(let server)? = slot { server.remove() }
            slot = nil
        }
    }
}

/// Runs `body` on a thread of its own and returns its result: blocking work
/// (a server's start) kept off Swift's two cooperative threads.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in
        Thread { c.resume(with: Result { try body() }) }.start()
    }
}
