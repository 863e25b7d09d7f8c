import FleetJSON
import Foundation

/// CSV as RFC 4180 writes it (https://www.rfc-editor.org/rfc/rfc4180):
/// fields quoted when they hold a comma, a quote or a line break, quotes
/// doubled; numbers as JSON writes them. Rows end in CRLF (the caller's).
public enum CSV {
    /// One field.
    public static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    /// A number: the shortest text that reads back the same.
    public static func number(_ v: Double) -> String { JSONValue.number(v).jsonText }
}
