import ArgumentParser
import FleetGeo
import FleetJSON
import FleetSQLite
import FleetStorage
import Foundation

/// Formatting shared by the subcommands: tables for people, JSON Lines for tools.
enum Output {
    static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).map { c, w in
            c.count >= w ? c + " " : c + String(repeating: " ", count: w - c.count)
        }
        .joined().trimmingCharacters(in: .whitespaces)
    }

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", v)
    }

    static func quote(_ s: String) -> String { JSONValue.quote(s) }

    /// Shortest round-tripping decimal form.
    static func number(_ v: Double) -> String {
        v.isFinite ? JSONValue.number(v).jsonText : "null"
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Opens the database; with `waitForIt`, waits for fleetd to create it.
    static func open(_ path: String, waitForIt: Bool) throws -> SQLiteReader {
        while true {
            do {
                return try SQLiteReader(path: path)
            } catch {
                guard waitForIt else { throw Output.fail("fleetctl: \(error)") }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    /// Prints `message` to stderr; the returned error exits with status 1.
    static func fail(_ message: String) -> any Error {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode.failure
    }
}
