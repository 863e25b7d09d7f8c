import Foundation
import Testing

/// The module boundaries the architecture rests on (docs/architecture.md,
/// "Import rules"), checked on the source tree: the daemon reaches storage
/// only through FleetStorage's interface, and only geometry imports
/// geometry for JSON.
@Suite struct ImportRulesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardizedFileURL

    /// Every `import X` line of every Swift file under `Sources/<module>`.
    func imports(of module: String) throws -> [(file: String, module: String)] {
        let dir = Self.sources.appendingPathComponent(module)
        let files =
            FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        #expect(!files.isEmpty, "no sources under \(dir.path)")
        var out: [(String, String)] = []
        for f in files {
            let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if let i = words.firstIndex(of: "import"), i + 1 < words.count,
                    words[..<i].allSatisfy({ $0.hasPrefix("@") })
                {
                    out.append(("\(module)/\(f)", String(words[i + 1])))
                }
            }
        }
        return out
    }

    @Test func theDaemonKnowsNoStorageBackend() throws {
        let banned: Set = ["GRDB", "GRDBSQLite", "SQLite3", "CSQLite", "FleetSQLite"]
        for i in try imports(of: "FleetDaemon") {
            #expect(!banned.contains(i.module), "\(i.file) imports \(i.module)")
        }
    }

    @Test func onlyGeometryImportsGeometry() throws {
        for module in ["FleetJSON", "FleetProtocols", "FleetStorage", "FleetSQLite"] {
            for i in try imports(of: module) {
                #expect(i.module != "FleetGeo", "\(i.file) imports FleetGeo")
            }
        }
    }

    @Test func pureCoresImportNoIO() throws {
        let io: Set = [
            "GRDB", "FleetSQLite", "FleetDaemon", "FleetSystemd", "CBatchUDP", "Logging",
        ]
        for module in ["FleetJSON", "FleetGeo", "FleetProtocols", "FleetTracking"] {
            for i in try imports(of: module) {
                #expect(!io.contains(i.module), "\(i.file) imports \(i.module)")
            }
        }
    }

    /// What each module may import: the layering of docs/architecture.md
    /// as an allowlist. A new import is a decision, made here and in the
    /// architecture's module table, not an accident.
    static let allowed: [String: Set<String>] = {
        let std: Set = ["Foundation", "Glibc", "Dispatch", "Synchronization"]
        let nio: Set = ["NIOCore", "NIOPosix", "NIOConcurrencyHelpers", "NIOHTTP1"]
        return [
            "FleetJSON": std,
            "FleetModel": std,
            "FleetGeo": std.union(["FleetJSON", "CPrefetch", "FleetModel"]),
            "FleetProtocols": std.union(["FleetJSON", "FleetModel"]),
            "FleetTracking": std.union(["FleetJSON", "FleetModel", "FleetGeo"]),
            // Positions name Teltonika's IO elements (`TeltonikaIO`).
            "FleetStorage": std.union([
                "FleetJSON", "FleetModel", "FleetProtocols", "FleetTracking",
            ]),
            "FleetSQLite": std.union([
                "FleetModel", "FleetStorage", "FleetTracking", "GRDB", "GRDBSQLite",
            ]),
            "FleetPostgres": std.union(nio).union([
                "FleetModel", "FleetStorage", "FleetTracking", "PostgresNIO", "Logging", "NIOSSL",
            ]),
            // The config: values and their parser, no I/O beyond reading files.
            "FleetConfig": std.union([
                "FleetModel", "FleetGeo", "FleetProtocols", "FleetStorage", "FleetTracking",
            ]),
            // The one place a backend is opened from the config.
            "FleetBackends": std.union([
                "FleetConfig", "FleetPostgres", "FleetSQLite", "FleetStorage", "FleetTracking",
            ]),
            "FleetReports": std.union(["FleetJSON", "FleetModel", "FleetGeo", "FleetStorage"]),
            "FleetAuth": std.union(["Crypto", "HummingbirdBcrypt"]),
            "FleetSystemd": std.union(["CSystemd", "Logging"]),
            // Mail: messages and the SMTP client.
            "FleetMail": std.union(nio).union([
                "FleetConfig", "FleetReports", "FleetStorage", "NIOSSL",
            ]),
            "FleetWebhooks": std.union(nio).union([
                "FleetJSON", "FleetModel", "FleetStorage", "FleetTracking", "Crypto",
                "AsyncHTTPClient", "NIOSSL",
            ]),
            "FleetHTTP": std.union(["NIOCore"]).union([
                "FleetAuth", "FleetConfig", "FleetGeo", "FleetJSON", "FleetModel", "FleetProtocols",
                "FleetReports", "FleetStorage", "FleetTracking", "FleetWebhooks", "Hummingbird",
                "HTTPTypes", "Logging", "ServiceLifecycle", "NIOHTTPTypes",
            ]),
            "FleetDaemon": std.union(nio).union([
                "FleetConfig", "FleetGeo", "FleetHTTP", "FleetModel", "FleetProtocols",
                "FleetStorage",
                "FleetSystemd", "FleetTracking", "FleetWebhooks", "FleetMail", "FleetReports",
                "CBatchUDP",
                "CoreMetrics",
                "Logging", "Prometheus", "ServiceLifecycle", "UnixSignals",
            ]),
            // fleetd opens its backend through FleetBackends only.
            "fleetd": std.union([
                "ArgumentParser", "FleetBackends", "FleetConfig", "FleetDaemon", "FleetPostgres",
                "FleetStorage", "FleetSystemd", "Logging",
            ]),
            // fleetctl reads the config without linking the daemon.
            "fleetctl": std.union([
                "ArgumentParser", "FleetAuth", "FleetBackends", "FleetConfig", "FleetGeo",
                "FleetJSON", "FleetModel",
                "FleetPostgres", "FleetProtocols", "FleetReports", "FleetSQLite", "FleetStorage",
                "FleetTracking", "FleetWebhooks", "FleetMail",
            ]),
            "fleetbench": std.union(nio).union([
                "ArgumentParser", "FleetGeo", "FleetModel", "FleetPostgres", "FleetProtocols",
                "FleetSQLite", "FleetSimCore", "FleetStorage", "FleetTracking", "Logging",
                "PostgresNIO",
            ]),
        ]
    }()

    @Test func everyModuleImportsOnlyWhatItsAllowlistNames() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path)
            .filter { !$0.hasPrefix("C") && !$0.hasPrefix(".") }
        #expect(Set(modules) == Set(Self.allowed.keys), "a module without an allowlist, or gone")
        for module in modules {
            let allowed = Self.allowed[module] ?? []
            for i in try imports(of: module) {
                #expect(allowed.contains(i.module), "\(i.file) imports \(i.module)")
            }
        }
    }

    @Test func fleetctlDoesNotLinkTheDaemon() throws {
        for i in try imports(of: "fleetctl") {
            #expect(
                !["FleetDaemon", "FleetHTTP", "FleetSystemd"].contains(i.module),
                "\(i.file) imports \(i.module)")
        }
    }

    @Test func theModelImportsNoOtherModuleOfTheProject() throws {
        for i in try imports(of: "FleetModel") {
            #expect(!i.module.hasPrefix("Fleet"), "\(i.file) imports \(i.module)")
        }
    }
}
