import ArgumentParser
import FleetModel
import FleetPostgres
import FleetStorage
import FleetTracking
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// `fleetbench pgstore`: PostgreSQL's writer alone, two ways to put the
/// same batches of positions in, on the same server, alternating:
/// `PostgresStore.commit` (fleetd's: `COPY` into a staging table, then
/// `INSERT … SELECT … ON CONFLICT DO NOTHING`, since `COPY` cannot skip a
/// row already stored and a resent fix is one) and pipelined multi-row
/// `INSERT … VALUES … ON CONFLICT DO NOTHING` of 500 rows a statement, every
/// column bound (what fleetd did before). One transaction per batch either
/// way; the table is emptied before each pass.
struct PostgresStoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pgstore",
        abstract:
            "PostgreSQL's writer alone: fleetd's COPY against multi-row INSERT … VALUES, same rows, same server."
    )

    @Option(help: "The database (postgres://USER@HOST:PORT/DATABASE).")
    var url: String

    @Option(help: "A file whose first line is the password.")
    var passwordFile = ""

    @Option(help: "Positions per pass.")
    var rows = 200_000

    @Option(help: "Positions per commit.")
    var batch = 4096

    @Option(help: "Devices the positions are spread over.")
    var devices = 20_000

    @Option(help: "Passes of each way (alternating; the median is reported).")
    var passes = 3

    func run() throws {
        let settings = try PostgresSettings(
            url: url, passwordFile: passwordFile, poolSize: 1, statementTimeoutMs: 0)
        let t0 = WallClock.system.nowMs() - 86_400_000
        let idents = (0..<devices).map { "pgbench-\($0)" }
        var batches: [[PositionRow]] = []
        var all: [PositionRow] = []
        for i in 0..<rows {
            let d = i % devices
            var fix = Fix(
                device: idents[d], time: t0 + Int64(i / devices) * 1000,
                lat: 48 + Double(d) / 100_000, lon: 11 + Double(i % 997) / 10_000)
            fix.speedKmh = Double(i % 120)
            fix.course = Double(i % 360)
            fix.sats = 9
            fix.ignition = true
            all.append(PositionRow(fix: fix, disposition: .accepted, receivedMs: t0))
            if all.count == batch {
                batches.append(all)
                all = []
            }
        }
        if !all.isEmpty { batches.append(all) }
        let store = try PostgresStore(settings: settings)
        // The device rows (and ids) exist before the first pass: both ways
        // then write positions only.
        try store.commit(Self.batch(Array(batches[0].prefix(devices))), committedMs: t0)
        let ids = try Self.deviceIds(settings)
        var inserts: [Double] = []
        var copies: [Double] = []
        for pass in 1...passes {
            try Self.empty(settings)
            let a = Date()
            for b in batches { try store.commit(Self.batch(b), committedMs: t0) }
            copies.append(Double(rows) / Date().timeIntervalSince(a))
            try Self.empty(settings)
            let seconds = try Self.values(batches, ids: ids, settings: settings)
            inserts.append(Double(rows) / seconds)
            say(
                String(
                    format:
                        "pass %d: COPY + INSERT … SELECT %.0f rows/s, INSERT … VALUES %.0f rows/s",
                    pass, copies.last!, inserts.last!))
        }
        let median = { (v: [Double]) in v.sorted()[v.count / 2] }
        say(
            String(
                format:
                    "median of %d passes, %d positions in commits of %d: INSERT … VALUES %.0f rows/s, COPY (fleetd's) %.0f rows/s (COPY/INSERT %.2f)",
                passes, rows, batch, median(inserts), median(copies),
                median(copies) / median(inserts)))
    }

    static func batch(_ rows: [PositionRow]) -> WriteBatch {
        var b = WriteBatch()
        b.positions = rows
        return b
    }

    /// Runs `body` on a connection of its own, waiting for it (this is a
    /// command-line program's main thread, not the cooperative pool).
    static func withConnection<T: Sendable>(
        _ settings: PostgresSettings,
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let logger = Logger(label: "fleetbench")
            do {
                let c = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(),
                    configuration: .init(
                        host: settings.host, port: settings.port, username: settings.user,
                        password: settings.password, database: settings.database, tls: .disable),
                    id: 1, logger: logger)
                do {
                    box.set(.success(try await body(c, logger)))
                } catch {
                    box.set(.failure(error))
                }
                try? await c.close()
            } catch {
                box.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return try box.get()
    }

    static func empty(_ settings: PostgresSettings) throws {
        try withConnection(settings) { c, log in
            try await c.query("TRUNCATE positions", logger: log)
            try await c.query("CHECKPOINT", logger: log)
        }
    }

    static func deviceIds(_ settings: PostgresSettings) throws -> [String: Int64] {
        try withConnection(settings) { c, log in
            var ids: [String: Int64] = [:]
            for try await (id, ident) in try await c.query(
                "SELECT id, ident FROM devices", logger: log
            ).decode((Int64, String).self) {
                ids[ident] = id
            }
            return ids
        }
    }

    /// The batches as pipelined multi-row `INSERT … VALUES`, 500 rows of
    /// 26 parameters a statement; returns the seconds taken.
    static func values(_ batches: [[PositionRow]], ids: [String: Int64], settings: PostgresSettings)
        throws -> Double
    {
        let columns = """
            device_id, time_ms, lat, lon, speed_kmh, course, alt_m, accuracy_m, sats, ignition,
            valid, disposition, received_ms, priority, movement, gsm_signal, ext_voltage_mv,
            odometer_m, gnss_status, fix_quality, hdop, io, io_codec, battery, charging, attributes
            """
        func statement(_ rows: Int) -> String {
            let tuples = (0..<rows).map { r in
                "(" + (1...26).map { "$\(r * 26 + $0)" }.joined(separator: ",") + ")"
            }
            return "INSERT INTO positions (\(columns)) VALUES \(tuples.joined(separator: ","))"
                + " ON CONFLICT (device_id, time_ms) DO NOTHING"
        }
        let full = statement(500)
        var work: [[PostgresQuery]] = []
        for rows in batches {
            var queries: [PostgresQuery] = []
            for start in stride(from: 0, to: rows.count, by: 500) {
                let chunk = rows[start..<min(start + 500, rows.count)]
                var b = PostgresBindings(capacity: chunk.count * 26)
                for r in chunk {
                    let f = r.fix
                    b.append(ids[f.device] ?? 0)
                    b.append(f.time)
                    b.append(f.lat)
                    b.append(f.lon)
                    b.append(f.speedKmh)
                    b.append(f.course)
                    b.append(f.altM)
                    b.append(f.accuracyM)
                    b.append(f.sats.map(Int64.init))
                    b.append(f.ignition)
                    b.append(f.valid)
                    b.append(Int64(r.disposition.rawValue))
                    b.append(r.receivedMs)
                    b.append(Int64?.none)  // priority
                    b.append(Bool?.none)  // movement
                    for _ in 0..<5 { b.append(Int64?.none) }  // gsm … fix quality
                    b.append(Double?.none)  // hdop
                    b.append(ByteBuffer?.none)
                    b.append(Int64?.none)
                    b.append(Double?.none)
                    b.append(Bool?.none)
                    b.append(String?.none)
                }
                queries.append(
                    PostgresQuery(
                        unsafeSQL: chunk.count == 500 ? full : statement(chunk.count), binds: b))
            }
            work.append(queries)
        }
        let prepared = work
        return try withConnection(settings) { c, log in
            let start = Date()
            for queries in prepared {
                try await c.query("BEGIN", logger: log)
                let sent = queries.map { c.query($0, logger: log) }
                for f in sent { _ = try await f.get() }
                try await c.query("COMMIT", logger: log)
            }
            return Date().timeIntervalSince(start)
        }
    }
}

/// A result handed from a task to the waiting thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ r: Result<T, any Error>) { lock.withLock { result = r } }

    func get() throws -> T {
        guard let r = lock.withLock({ result }) else { throw ValidationError("no result") }
        return try r.get()
    }
}
