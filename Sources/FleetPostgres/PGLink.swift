import Dispatch
import FleetModel
import FleetStorage
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection to PostgreSQL, used synchronously: the store interface is
/// synchronous (its callers are the commit stage's thread and Dispatch's
/// pool, never an event loop nor Swift's cooperative threads), so each call
/// sends its statements on postgres-nio's event loop and waits for them.
///
/// Connects on first use and again after the connection is lost: a call that
/// fails because the server went away throws, and the next call tries a new
/// connection. Thread-safe: calls take turns.
final class PGLink: @unchecked Sendable {
    let settings: PostgresSettings
    /// `application_name`, as `pg_stat_activity` shows the session.
    let name: String
    /// Statements run after connecting (session settings).
    private let setup: [String]
    private let lock = NIOLock()
    private var connection: PostgresConnection?
    private var nextId = 0

    static let logger: Logger = {
        var l = Logger(label: "fleetd.postgres")
        l.logLevel = .critical
        return l
    }()

    init(_ settings: PostgresSettings, name: String, setup: [String] = []) {
        self.settings = settings
        self.name = name
        self.setup = setup
    }

    deinit { close() }

    /// Closes the connection (the next call opens a new one).
    func close() {
        lock.withLock {
            if let c = connection { try? c.close().wait() }
            connection = nil
        }
    }

    /// Runs `body` on the connection (connecting first when needed). Any
    /// failure becomes a `StoreError` naming the database and `action`.
    @discardableResult
    func session<T>(_ action: String, _ body: (PGSession) throws -> T) throws(StoreError) -> T {
        do {
            return try lock.withLock {
                // A connection the server closed since the last call (a
                // restart) is replaced before use: a statement written to a
                // closed channel would never be answered.
                if let c = connection, c.isClosed {
                    try? c.close().wait()
                    connection = nil
                }
                let c = try connection ?? connect()
                connection = c
                do {
                    return try body(PGSession(connection: c, limit: answerLimit))
                } catch {
                    if c.isClosed {
                        try? c.close().wait()
                        connection = nil
                    }
                    throw error
                }
            }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(path: settings.location, action: action, underlying: PGProblem(error))
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled
    /// back when it throws.
    @discardableResult
    func transaction<T>(_ action: String, _ body: (PGSession) throws -> T) throws(StoreError) -> T {
        try session(action) { s in
            try s.run("BEGIN")
            do {
                let result = try body(s)
                try s.run("COMMIT")
                return result
            } catch {
                if !s.connection.isClosed { _ = try? s.run("ROLLBACK") }
                throw error
            }
        }
    }

    /// How long a statement's answer may take before the connection is
    /// given up (closed, failing every statement on it): the server's
    /// `statement_timeout` and 10 s more, or 60 s without one.
    private var answerLimit: TimeAmount {
        .milliseconds(
            Int64(settings.statementTimeoutMs > 0 ? settings.statementTimeoutMs + 10_000 : 60_000))
    }

    /// The TLS of a connection for `settings.sslMode` (libpq's meanings):
    /// `require` encrypts without checking the certificate (unless a CA
    /// file is given), `verify-ca` checks the chain against `sslRootCert`
    /// (else the system's trust store), `verify-full` the host name too
    /// (the name or address in the URL against the certificate's names).
    /// Throws when the CA file cannot be read.
    static func tls(_ settings: PostgresSettings) throws -> PostgresConnection.Configuration.TLS {
        var t = TLSConfiguration.makeClientConfiguration()
        if let root = settings.sslRootCert { t.trustRoots = .file(root) }
        switch settings.sslMode {
        case .disable:
            return .disable
        case .require:
            t.certificateVerification =
                settings.sslRootCert == nil ? .none : .noHostnameVerification
        case .verifyCA:
            t.certificateVerification = .noHostnameVerification
        case .verifyFull:
            t.certificateVerification = .fullVerification
        }
        do {
            return .require(try NIOSSLContext(configuration: t))
        } catch {
            throw PGProblem(
                message:
                    "TLS (sslmode=\(settings.sslMode.rawValue)): cannot use sslrootcert \(settings.sslRootCert ?? "(the system's)"): \(error)"
            )
        }
    }

    private func connect() throws -> PostgresConnection {
        var config = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user,
            password: settings.password, database: settings.database, tls: try Self.tls(settings))
        config.options.connectTimeout = .milliseconds(Int64(settings.connectTimeoutMs))
        config.options.additionalStartupParameters = [("application_name", name)]
        nextId += 1
        let c = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config, id: nextId,
            logger: Self.logger
        ).wait()
        do {
            let s = PGSession(connection: c, limit: answerLimit)
            if settings.statementTimeoutMs > 0 {
                try s.run("SET statement_timeout = \(settings.statementTimeoutMs)")
            }
            for statement in setup { try s.run(statement) }
        } catch {
            try? c.close().wait()
            throw error
        }
        return c
    }
}

/// The statements of one `PGLink` call, on its connection.
struct PGSession {
    let connection: PostgresConnection
    /// How long `wait` waits for an answer.
    let limit: TimeAmount

    /// Runs `sql` with `binds` and waits for its rows.
    @discardableResult
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [PGRow] {
        try wait(send(sql, binds)).rows.map(PGRow.init)
    }

    /// Runs `sql` and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Int {
        try wait(send(sql, binds)).metadata.rows ?? 0
    }

    /// Waits for `future`, at most `limit`, and no longer than the
    /// connection lives: past `limit` the connection is closed (its
    /// statements all fail) and `PGTimeout` thrown; once the connection is
    /// closed (the server went away) `PGTimeout` is thrown at once, even if
    /// the future is never completed.
    func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { _ in done.signal() }
        if let lost = waitOrLost(done) { throw PGTimeout.orLost(lost, limit) }
        do {
            return try future.wait()
        } catch {
            if connection.isClosed {
                throw PGTimeout.orLost(error, limit)
            }
            throw error
        }
    }

    /// `COPY table (columns) FROM STDIN` with `text` (COPY's text format),
    /// in order after what was sent before; waits as `wait` does. postgres-nio
    /// has `COPY` only as an async call: it runs in a task on the
    /// connection's event loop (`EventLoopTaskExecutor`, not the cooperative
    /// pool) while this thread waits.
    func copy(into table: String, columns: [String], text: String) throws {
        let connection = connection
        let result = PGCopyResult()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: EventLoopTaskExecutor(connection.eventLoop)) {
            do {
                try await connection.copyFrom(
                    table: table, columns: columns, logger: PGLink.logger
                ) { writer in
                    try await writer.write(ByteBuffer(string: text))
                }
                result.set(nil)
            } catch {
                result.set(error)
            }
            done.signal()
        }
        if let lost = waitOrLost(done) {
            throw PGTimeout.orLost(result.error ?? lost, limit)
        }
        if let e = result.error { throw e }
    }

    /// How often a wait looks whether the connection is still open.
    static let closedCheck = DispatchTimeInterval.milliseconds(100)

    /// Waits for `done`; nil once signalled. The reason it stopped waiting
    /// otherwise: `limit` passed (the connection is then closed), or the
    /// connection closed. A statement or `COPY` written to a connection as
    /// it closes may never be answered (postgres-nio writes it with no
    /// promise), so the wait watches the connection as well as the answer;
    /// a closed connection is given one more look (`closedCheck`) for an
    /// answer already on its way.
    private func waitOrLost(_ done: DispatchSemaphore) -> (any Error)? {
        let deadline = DispatchTime.now() + .nanoseconds(Int(limit.nanoseconds))
        while true {
            let step = min(DispatchTime.now() + Self.closedCheck, deadline)
            if done.wait(timeout: step) == .success { return nil }
            if connection.isClosed {
                if done.wait(timeout: .now() + Self.closedCheck) == .success { return nil }
                return PGTimeout(description: "the connection closed")
            }
            if DispatchTime.now() >= deadline {
                let closing: EventLoopFuture<Void> = connection.close()
                _ = closing
                return PGTimeout(description: "no answer")
            }
        }
    }

    /// Sends `sql` without waiting: statements sent in a row are pipelined
    /// on the connection and run in order.
    func send(_ sql: String, _ binds: PostgresBindings = PostgresBindings())
        -> EventLoopFuture<PostgresQueryResult>
    {
        connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: PGLink.logger)
    }
}

/// One result row, its cells read by index and decoded to the type asked for.
struct PGRow {
    let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) { cells = row.makeRandomAccess() }

    subscript<T: PostgresDecodable>(_ i: Int) -> T {
        get throws { try cells[i].decode(T.self) }
    }

    /// A fix for replay through the tracker, of `device`, from the columns
    /// `time_ms, lat, lon, speed_kmh, ignition, valid, accuracy_m, hdop`:
    /// everything the tracker reads.
    static func replayFix(_ device: String, _ r: PGRow) throws -> Fix {
        let hdop: Double? = try r[7]
        return Fix(
            device: device, time: try r[0], lat: try r[1], lon: try r[2], speedKmh: try r[3],
            accuracyM: try r[6], ignition: try r[4], valid: try r[5],
            extra: hdop.map { h in
                var x = FixExtra()
                x.hdop = h
                return x
            })
    }
}

/// Builds a statement's parameters: `b.add(x)` for each `$n` in order.
extension PostgresBindings {
    mutating func add(_ v: Int64) { append(v) }
    mutating func add(_ v: Int64?) { append(v) }
    mutating func add(_ v: Int) { append(Int64(v)) }
    mutating func add(_ v: Int?) { append(v.map { Int64($0) }) }
    mutating func add(_ v: Double) { append(v) }
    mutating func add(_ v: Double?) { append(v) }
    mutating func add(_ v: Bool) { append(v) }
    mutating func add(_ v: Bool?) { append(v) }
    mutating func add(_ v: String) { append(v) }
    mutating func add(_ v: String?) { append(v) }
    mutating func add(_ v: [UInt8]?) {
        if let v { append(ByteBuffer(bytes: v)) } else { append(ByteBuffer?.none) }
    }
    mutating func add(_ v: [String]) { append(v) }
    mutating func add(_ v: [Int64]) { append(v) }

    /// Bindings of `values`, in order.
    static func of(_ values: any PGBindable...) -> PostgresBindings {
        var b = PostgresBindings()
        for v in values { v.bind(into: &b) }
        return b
    }
}

/// A value `PostgresBindings.of` takes.
protocol PGBindable {
    func bind(into b: inout PostgresBindings)
}
extension Int64: PGBindable { func bind(into b: inout PostgresBindings) { b.add(self) } }
extension Int: PGBindable { func bind(into b: inout PostgresBindings) { b.add(self) } }
extension Double: PGBindable { func bind(into b: inout PostgresBindings) { b.add(self) } }
extension Bool: PGBindable { func bind(into b: inout PostgresBindings) { b.add(self) } }
extension String: PGBindable { func bind(into b: inout PostgresBindings) { b.add(self) } }
extension Optional: PGBindable where Wrapped: PGBindable & PostgresDynamicTypeEncodable {
    func bind(into b: inout PostgresBindings) { b.append(self) }
}
extension Array: PGBindable where Element == String {
    func bind(into b: inout PostgresBindings) { b.add(self) }
}

/// A statement whose answer did not come in time, or whose connection was lost.
struct PGTimeout: Error, CustomStringConvertible {
    let description: String

    static func orLost(_ error: any Error, _ limit: TimeAmount) -> any Error {
        PGTimeout(
            description:
                "connection lost or no answer within \(limit.nanoseconds / 1_000_000_000) s (\(error))"
        )
    }
}

/// What a `COPY` run in a task came to, for the thread waiting on it.
final class PGCopyResult: @unchecked Sendable {
    private let lock = NIOLock()
    private var stored: (any Error)?

    func set(_ e: (any Error)?) { lock.withLock { stored = e } }
    var error: (any Error)? { lock.withLock { stored } }
}
