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
}
