import Testing

@testable import FleetJSON

/// `JSONValue.quote`: plain strings are copied whole, others escaped per
/// RFC 8259 §7; either way the reader reads back the string quoted.
@Suite struct JSONQuoteTests {
    @Test(arguments: [
        ("depot", #""depot""#),
        ("", #""""#),
        ("Zürich Hbf → Süd", #""Zürich Hbf → Süd""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("tab\tnew\nline\r", #""tab\tnew\nline\r""#),
        ("\u{01}\u{1F}", #""\u0001\u001f""#),
    ])
    func quotes(_ c: (String, String)) throws {
        #expect(JSONValue.quote(c.0) == c.1)
        #expect(try JSONReader.parseDocument(Array(JSONValue.quote(c.0).utf8)) == .string(c.0))
    }
}
