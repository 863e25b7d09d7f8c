import ArgumentParser
import FleetSQLite
import FleetStorage
import Foundation

/// Formatting shared by the subcommands: tables for people, JSON Lines for tools.
enum Output {
    /// One line of a table: each cell made printable, then padded to its width.
    static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells.map(printable), widths).map { c, w in
            c.count >= w ? c + " " : c + String(repeating: " ", count: w - c.count)
        }
        .joined().trimmingCharacters(in: .whitespaces)
    }

    /// `text` with its control characters escaped (`\n`, `\t`, `\r`,
    /// `\u{…}`): a cell holds what a stranger could send (a user name tried
    /// at login, a device id), and a newline in it must not forge a line
    /// of the table, nor an escape sequence reach the terminal.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return text }
        var out = ""
        for u in text.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where u.properties.generalCategory == .control:
                out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// A table's lines, the header first: each column as wide as its widest
    /// cell plus a space (at least `minimum`), so long device ids never push
    /// the columns after them out of line.
    static func table(_ header: [String], _ rows: [[String]], minimum: [Int]) -> [String] {
        var widths = minimum
        for r in [header] + rows {
            for (i, c) in r.enumerated() where i < widths.count {
                widths[i] = max(widths[i], printable(c).count + 1)
            }
        }
        return ([header] + rows).map { row($0, widths) }
    }

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", v)
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Prints `message` to stderr; the returned error exits with status 1.
    static func fail(_ message: String) -> any Error {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode.failure
    }

    /// Runs a change of the database; it must return true, or the command
    /// fails with `otherwise`. A storage error fails it with its message.
    static func change(_ otherwise: String, _ body: () throws(StoreError) -> Bool) throws {
        let done: Bool
        do {
            done = try body()
        } catch {
            throw fail("fleetctl: \(error)")
        }
        guard done else { throw fail("fleetctl: \(otherwise)") }
    }
}
