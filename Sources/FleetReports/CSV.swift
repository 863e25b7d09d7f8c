import FleetJSON
import Foundation

/// CSV as RFC 4180 writes it (https://www.rfc-editor.org/rfc/rfc4180):
/// fields quoted when they hold a comma, a quote or a line break, quotes
/// doubled; numbers as JSON writes them. Rows end in CRLF (the caller's).
///
/// A text that a spreadsheet would take for a formula (it starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return, and is not a number) is
/// written with a leading `'`, as OWASP's "CSV injection" page advises
/// (https://owasp.org/www-community/attacks/CSV_Injection): a device
/// named `=HYPERLINK(…)` reaches the report as text, not as a formula.
public enum CSV {
    /// One field.
    public static func field(_ s: String) -> String {
        let safe = isFormula(s) ? "'" + s : s
        return safe.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : safe
    }

    /// A number: the shortest text that reads back the same.
    public static func number(_ v: Double) -> String { JSONValue.number(v).jsonText }

    /// True for a text a spreadsheet would read as a formula: its first
    /// character is one of `= + - @`, a tab or a CR, and it is not a number
    /// (`-33.9` stays as it is).
    static func isFormula(_ s: String) -> Bool {
        guard let c = s.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(c) else {
            return false
        }
        return Double(s) == nil
    }
}
