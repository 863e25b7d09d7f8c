import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// `GET /api/v1/openapi.json` checked against the live daemon by
/// schemathesis (from PyPI; `make test`'s set-up installs it in `.build/pytools`):
/// every documented operation, valid and invalid inputs alike, answers as
/// documented (status, headers, content type, body schema), 401 without
/// credentials, 405 for other methods, never a 500. Bounded: a fixed seed,
/// a few dozen cases per operation, a time limit.
@Suite(.offPool) struct OpenAPIEndToEndTests {
    /// The schemathesis command (`FLEETD_SCHEMATHESIS` overrides).
    static var schemathesis: String {
        ProcessInfo.processInfo.environment["FLEETD_SCHEMATHESIS"]
            ?? Binaries.packageRoot.appendingPathComponent(".build/pytools/bin/st").path
    }

    @Test func schemathesisFindsNothingWrong() async throws {
        let st = Self.schemathesis
        guard FileManager.default.isExecutableFile(atPath: st) else {
            Issue.record("\(st) is missing: run `make setup-test` (it installs schemathesis)")
            return
        }
        let a = try APIEndToEndTests.APIDaemon()
        // Something to read: positions, alerts (the depot's exit), a registered device.
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let t0: Int64 = 1_700_000_000_000
        for i in 0..<4 {
            #expect(
                exchange(
                    client,
                    [
                        fixLine(
                            i + 1, t0 + Int64(i) * 10_000, lat: 47.95 + Double(i) * 0.05, lon: 11.05
                        )
                    ]
                ) != nil)
        }
        let document = try await a.http.get("/api/v1/openapi.json")
        #expect(document.status == 200 && document.json["openapi"] as? String == "3.1.0")
        let config = Binaries.packageRoot.appendingPathComponent(
            "Tests/EndToEndTests/Schemathesis/schemathesis.toml")
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        let run = try await runToolOffPool(
            st,
            [
                "--config-file", config.path, "run",
                "http://127.0.0.1:\(a.d.ports["http"] ?? 0)/api/v1/openapi.json",
                "--header", "Authorization: Bearer \(a.tokens["admin"]!)",
                "--checks", "all", "--max-examples", "25", "--seed", "20261124",
                // One worker: hypothesis parses lambdas' source with `ast`,
                // which CPython 3.11 does not allow on two threads at once
                // ("AST constructor recursion depth mismatch").
                "--workers", "1", "--generation-database", "none",
                "--request-timeout", "20",
            ], timeout: 400, cwd: a.d.dir, environment: env)
        #expect(
            run.status == 0,
            "schemathesis found problems:\n\(run.out.suffix(6000))\n\(run.err.suffix(2000))")
        // It tried every operation but the endless stream.
        #expect(run.out.contains("Tested: 40"), "\(run.out.suffix(1500))")
        print(run.out.suffix(1200))
        #expect(a.d.stop() == 0)
    }
}
