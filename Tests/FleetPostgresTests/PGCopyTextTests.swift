import FleetModel
import FleetStorage
import FleetTracking
import Testing

@testable import FleetPostgres

/// Positions in COPY's text format: every column in order, nulls as `\N`,
/// escapes for what would break a line or a field, bytea as hex.
@Suite struct PGCopyTextTests {
    @Test func aBareFixHasEveryColumnAndNulls() {
        var out = ""
        let fix = Fix(device: "d", time: 1_700_000_000_000, lat: 48.5, lon: -11.25)
        PGCopyText.append(
            PositionRow(fix: fix, disposition: .accepted, receivedMs: 1_700_000_000_123), device: 7,
            to: &out)
        let fields = out.dropLast().split(separator: "\t", omittingEmptySubsequences: false)
        #expect(out.hasSuffix("\n"))
        #expect(fields.count == PGCopyText.columns.count)
        #expect(fields[0] == "7")
        #expect(fields[1] == "1700000000000")
        #expect(fields[2] == "48.5")
        #expect(fields[3] == "-11.25")
        #expect(fields[4] == "\\N")
        #expect(fields[10] == "t")
        #expect(fields[11] == "0")
        #expect(fields[12] == "1700000000123")
        #expect(fields[21] == "\\N")
    }

    @Test func extrasAreEscapedAndBytesAreHex() {
        var fix = Fix(device: "d", time: 1, lat: 1, lon: 2)
        var x = FixExtra()
        x.ioRaw = [0x00, 0xAB, 0x10]
        x.ioCodec = 0x8E
        x.attributes = "a\tb\nc\\d\re"
        x.movement = false
        x.hdop = .nan
        fix.extra = x
        fix.speedKmh = .infinity
        var out = ""
        PGCopyText.append(
            PositionRow(fix: fix, disposition: .late, receivedMs: 2), device: 1, to: &out)
        let fields = out.dropLast().split(separator: "\t", omittingEmptySubsequences: false)
        #expect(fields.count == PGCopyText.columns.count)
        #expect(out.filter { $0 == "\n" }.count == 1)
        #expect(fields[4] == "Infinity")
        #expect(fields[14] == "f")
        #expect(fields[20] == "NaN")
        #expect(fields[21] == "\\\\x00ab10")
        #expect(fields[22] == "142")
        #expect(fields[25] == "a\\tb\\nc\\\\d\\re")
    }
}
