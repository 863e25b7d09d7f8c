import FleetStorage
import FleetTestSupport
import Foundation
import Testing

@testable import FleetPostgres

/// `sslmode` against a real PostgreSQL that takes TLS connections only
/// (`hostssl`), its certificate signed by a test CA for "localhost": each
/// mode connects where libpq's would, and refuses, naming TLS, where the
/// certificate does not hold.
@Suite(.offPool) struct PostgresTLSTests {
    /// The test's server, removed at the end of the test.
    let server: PostgresServer

    init() throws { server = try PostgresServer(tls: true) }

    /// Settings for the test server reached as `host` with URL parameters `query`.
    func settings(host: String, _ query: String) throws -> PostgresSettings {
        var s = try PostgresSettings(
            url: "postgres://fleetd@\(host):\(server.port)/fleetd?connect_timeout=5&\(query)")
        s.password = server.password
        return s
    }

    /// Whether the session is encrypted (the server's own view, `pg_stat_ssl`).
    func encrypted(_ s: PostgresSettings) throws -> Bool {
        let link = PGLink(s, name: "tls test", setup: [])
        defer { link.close() }
        return try link.session("asking pg_stat_ssl") { session in
            let rows = try session.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            return try rows.first.map { try $0[0] as Bool } ?? false
        }
    }

    /// The error opening a connection with `s` (nil when it opened).
    func refusal(_ s: PostgresSettings) -> String? {
        do {
            _ = try encrypted(s)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// One test, one server (its `initdb` and certificates take a few seconds).
    @Test func eachModeConnectsWhereItShouldAndRefusesWhereItShould() throws {
        defer { server.remove() }
        // The server's certificate is checked against the test CA, and names "localhost".
        #expect(
            try encrypted(
                settings(host: "localhost", "sslmode=verify-full&sslrootcert=\(server.caFile)")))
        #expect(
            try encrypted(
                settings(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(server.caFile)")))
        // require encrypts and checks nothing.
        #expect(try encrypted(settings(host: "127.0.0.1", "sslmode=require")))
        // verify-full checks a name: an address is refused before connecting.
        #expect(throws: PostgresSettings.Problem.self) {
            try settings(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(server.caFile)")
        }
        // Signed by a CA the client was not told to trust.
        let otherCA = refusal(
            try settings(host: "localhost", "sslmode=verify-ca&sslrootcert=\(server.otherCAFile)"))
        #expect(otherCA?.contains("TLS") == true, "\(otherCA ?? "connected")")
        // Not in the system's trust store either.
        let system = refusal(try settings(host: "localhost", "sslmode=verify-full"))
        #expect(system?.contains("TLS") == true, "\(system ?? "connected")")
        // require with a CA file checks the chain, as libpq does.
        let requireCA = refusal(
            try settings(host: "localhost", "sslmode=require&sslrootcert=\(server.otherCAFile)"))
        #expect(requireCA?.contains("TLS") == true, "\(requireCA ?? "connected")")
        // A CA file that is not there is named.
        let missing = refusal(
            try settings(host: "localhost", "sslmode=verify-full&sslrootcert=/nonexistent/ca.crt"))
        #expect(missing?.contains("/nonexistent/ca.crt") == true, "\(missing ?? "connected")")
        // Without TLS the server (hostssl only) does not take the connection.
        let plain = refusal(try settings(host: "127.0.0.1", "sslmode=disable"))
        #expect(plain?.contains("no encryption") == true, "\(plain ?? "connected")")
        // The store itself (schema, writer) over verify-full.
        let store = try PostgresStore(
            settings: settings(
                host: "localhost", "sslmode=verify-full&sslrootcert=\(server.caFile)"))
        #expect(try store.loadStates().isEmpty)
    }
}
