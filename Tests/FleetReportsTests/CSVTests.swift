import Testing

@testable import FleetReports

/// Fields as RFC 4180 quotes them, and texts a spreadsheet would run as
/// formulas neutralised (OWASP's CSV injection rule).
@Suite struct CSVTests {
    @Test(arguments: [
        ("=HYPERLINK(\"http://x\",\"a\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\""),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=1", "\"'\r=1\""),
        ("-33.9", "-33.9"),
        ("+49", "+49"),
        ("Van 1", "Van 1"),
        ("a,b", "\"a,b\""),
        ("", ""),
    ])
    func formulasAreNeutralisedAndNumbersKept(_ c: (String, String)) {
        #expect(CSV.field(c.0) == c.1)
    }
}
