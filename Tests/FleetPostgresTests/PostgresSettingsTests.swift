import FleetStorage
import Foundation
import Testing

@testable import FleetPostgres

/// `[postgresql]`'s URL and password, read as libpq reads them, and never shown.
@Suite struct PostgresSettingsTests {
    @Test func readsEveryPartOfTheURL() throws {
        let s = try PostgresSettings(url: "postgres://ops@db.example:6543/fleet?connect_timeout=3")
        #expect(s.user == "ops")
        #expect(s.host == "db.example")
        #expect(s.port == 6543)
        #expect(s.database == "fleet")
        #expect(s.connectTimeoutMs == 3000)
        #expect(s.password == nil)
        let d = try PostgresSettings(url: "postgresql://")
        #expect(d.location == "postgres://fleetd@127.0.0.1:5432/fleetd")
    }

    @Test(arguments: [
        ("mysql://a@b/c", "is not a postgres://USER@HOST:PORT/DATABASE URL"),
        ("postgres://a@b/c?sslmode=prefer", "sslmode \"prefer\" is not supported"),
        ("postgres://a@b/c?sslrootcert=", "sslrootcert must name a file"),
        ("postgres://a@10.0.0.5/c?sslmode=verify-full", "not the address 10.0.0.5"),
        ("postgres://a@b/c?sslcert=x", "URL parameter \"sslcert\" is not supported"),
        ("postgres://a@b/c?connect_timeout=x", "connect_timeout must be a whole number"),
    ])
    func badURLsSayWhat(_ c: (String, String)) {
        do {
            _ = try PostgresSettings(url: c.0)
            Issue.record("\(c.0) was taken")
        } catch {
            #expect(error.description.contains(c.1), "\(error)")
        }
    }

    @Test func aPasswordInTheURLIsNeverShown() throws {
        let s = try PostgresSettings(url: "postgres://ops:s3cr%40t@db/fleet")
        #expect(s.password == "s3cr@t")
        #expect(!s.location.contains("s3cr"))
        #expect(!PostgresSettings.redacted("postgres://ops:s3cret@db/fleet").contains("s3cret"))
        do {
            _ = try PostgresSettings(url: "mysql://ops:s3cret@db/fleet")
        } catch {
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test func thePasswordFileThenPGPASSWORDThenThePassFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pgpass-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("pw").path
        try "from-file\nignored\n".write(toFile: file, atomically: true, encoding: .utf8)
        var a = try PostgresSettings(url: "postgres://fleetd@h:5432/db")
        try a.readPassword(file: file)
        #expect(a.password == "from-file")

        let pass = dir.appendingPathComponent("pgpass").path
        try """
        # comment
        other:5432:db:fleetd:wrong
        h:5432:*:fleetd:with\\:colon
        *:*:*:*:fallback
        """.write(toFile: pass, atomically: true, encoding: .utf8)
        var b = try PostgresSettings(url: "postgres://fleetd@h:5432/db")
        b.readPassFileIfNeeded(environment: ["PGPASSFILE": pass])
        #expect(b.password == "with:colon")
        var c = try PostgresSettings(url: "postgres://fleetd@h:5432/db")
        c.readPassFileIfNeeded(environment: ["PGPASSFILE": pass, "PGPASSWORD": "env"])
        #expect(c.password == "env")
        var d = try PostgresSettings(url: "postgres://x@elsewhere:1/y")
        d.readPassFileIfNeeded(environment: ["PGPASSFILE": pass])
        #expect(d.password == "fallback")

        var e = try PostgresSettings(url: "postgres://fleetd@h/db")
        #expect(throws: PostgresSettings.Problem.self) {
            try e.readPassword(file: dir.appendingPathComponent("missing").path)
        }
    }

    @Test func synchronousModesMapToSynchronousCommit() {
        #expect(SynchronousMode.off.postgres == "off")
        #expect(SynchronousMode.normal.postgres == "local")
        #expect(SynchronousMode.full.postgres == "on")
        #expect(SynchronousMode.extra.postgres == "remote_apply")
    }

    @Test func migrationsSplitIntoStatementsWithoutComments() {
        let parts = PGSchema.statements(
            """
            CREATE TABLE a (
                x BIGINT -- not a comment line
            );
            -- a comment line
            CREATE INDEX a_x ON a(x);
            """)
        #expect(parts.count == 2)
        #expect(parts[0].hasPrefix("CREATE TABLE a"))
        #expect(!parts.joined().contains("-- a comment line"))
        #expect(PGSchema.migrations.map(\.version) == Array(1...PGSchema.migrations.count))
    }
}
