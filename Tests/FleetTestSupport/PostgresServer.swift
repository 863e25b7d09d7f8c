import Foundation

/// A real PostgreSQL server of the test's own (Debian's postgresql-15),
/// started by `scripts/pg-test-server.sh` in a temporary folder on a free
/// loopback port, with the user `fleetd` (a superuser; password in
/// `passwordFile`) and the database `fleetd`. Stop it with `stop()`, or
/// `remove()` it. Its calls block (they wait for the script): call them
/// off the cooperative pool, or once per test process.
public final class PostgresServer: @unchecked Sendable {
    public let dir: URL
    public let port: Int
    /// The URL of the database `fleetd` (no password).
    public var url: String { url(database: "fleetd") }
    /// The URL of another database on this server.
    public func url(database: String) -> String {
        "postgres://fleetd@127.0.0.1:\(port)/\(database)"
    }
    public var passwordFile: String { dir.appendingPathComponent("password").path }
    public var password: String {
        ((try? String(contentsOfFile: passwordFile, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg-test-server.sh").path
    }

    /// Runs the script with `args`, its output to `DIR.out` beside the
    /// server's folder, waiting at most `timeout` s; returns the exit status
    /// and that output. Spawned and reaped here (`posix_spawn`, `waitpid`):
    /// the script's children (the server, under `runuser`) outlive it.
    public static func script(_ args: [String], timeout: Double) throws -> (
        status: Int32, out: String
    ) {
        let outPath = "/tmp/fleetd-pg-script-\(UUID().uuidString.prefix(8)).out"
        defer { unlink(outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ["/bin/bash", script] + args
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/bash", &actions, nil, &cArgs, environ)
        guard rc == 0 else {
            throw TestSupportError("cannot run \(script): \(String(cString: strerror(rc)))")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw TestSupportError("\(script) \(args) did not finish in \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), out)
    }

    /// The test CA that signed the server's certificate (for "localhost"),
    /// and one that signed nothing here (a server started with `tls`).
    public var caFile: String { dir.appendingPathComponent("tls/ca.crt").path }
    public var otherCAFile: String { dir.appendingPathComponent("tls/other-ca.crt").path }

    /// Starts a server (three tries, each on a new free port); `tls`: one
    /// that takes TLS connections only, with a certificate of a test CA.
    public init(tls: Bool = false) throws {
        var lastError = ""
        for _ in 0..<3 {
            let d = URL(fileURLWithPath: "/tmp").appendingPathComponent(
                "fleetd-pg-\(UUID().uuidString.prefix(8))")
            let p = try freeUDPPort()
            let r = try Self.script(["start", d.path, "\(p)"] + (tls ? ["tls"] : []), timeout: 60)
            if r.status == 0 {
                dir = d
                port = p
                return
            }
            lastError = r.out
            _ = try? Self.script(["stop", d.path], timeout: 40)
            try? FileManager.default.removeItem(at: d)
        }
        throw TestSupportError("PostgreSQL did not start: \(lastError)")
    }

    /// The `[storage]` and `[postgresql]` lines of a fleetd using this server.
    public var storageConfig: String { #"backend = "postgresql""# }
    public var sectionConfig: String {
        """
        [postgresql]
        url = "\(url)"
        password_file = "\(passwordFile)"
        """
    }

    /// Fast shutdown (the server stops; clients see their connections go).
    public func stop() throws {
        let r = try Self.script(["stop", dir.path], timeout: 40)
        guard r.status == 0 else { throw TestSupportError("pg stop failed: \(r.out)") }
    }

    /// Starts the stopped server again on its port.
    public func start() throws {
        let r = try Self.script(["resume", dir.path], timeout: 40)
        guard r.status == 0 else { throw TestSupportError("pg start failed: \(r.out)") }
    }

    /// Stops the server and removes its folder.
    public func remove() {
        _ = try? stop()
        try? FileManager.default.removeItem(at: dir)
    }
}
