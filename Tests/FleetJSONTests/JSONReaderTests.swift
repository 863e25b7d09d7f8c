import Testing

@testable import FleetJSON

@Suite struct JSONReaderTests {
    func parse(_ s: String) throws -> JSONValue { try JSONReader.parseDocument(Array(s.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let v = try parse(#"{"a":[1,-2.5e3,true,false,null],"b":"x\"\u00e9\ud83d\ude00","c":{}}"#)
        #expect(v["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
        #expect(v["b"] == .string("x\"é😀"))
        #expect(v["c"] == .object([]))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "01", "1.", "-", "1e", "\"\\x\"", "\"a", "tru",
        "nul",
        "{\"a\":1}x", "\"\\ud800\"", "[1 2]", "{a:1}", "\"\u{01}\"",
    ])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func errorsCarryLineAndColumn() {
        do {
            _ = try parse("{\n  \"a\": 1,\n  \"b\" 2\n}")
            Issue.record("expected an error")
        } catch let error as JSONSyntaxError {
            #expect(error.line == 3)
            #expect(error.column == 7)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try parse(deep) }
    }

    @Test func integersAreExact() throws {
        let v: Int64? = Array("9007199254740993".utf8).withUnsafeBufferPointer { buf in
            var r = JSONReader(buf)
            return try? r.readInt64()
        }
        #expect(v == 9_007_199_254_740_993)
    }
}

@Suite struct JSONNumberTests {
    /// The fast decimal path must round exactly as the standard library does.
    @Test func decimalsRoundExactlyAsStrtod() throws {
        var state: UInt64 = 12345
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let intPart = Int(truncatingIfNeeded: state >> 40) % 200 - 100
            let frac = String(state % 10_000_000_000)
            let exp = Int(truncatingIfNeeded: (state >> 20) % 9) - 4
            for text in [
                "\(intPart).\(frac)", "\(intPart).\(frac)e\(exp)", "-0.\(frac)",
                "\(frac)E-\(abs(exp))",
            ] {
                let v = try JSONReader.parseDocument(Array(text.utf8))
                #expect(v == .number(Double(text)!), "\(text)")
            }
        }
    }
}
