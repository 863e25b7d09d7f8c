/// A strict RFC 8259 JSON reader over bytes, with positions for errors.
///
/// It offers both the building blocks a hot decoder needs (read a string, a
/// number, skip a value, without building trees) and `readValue()` for whole
/// documents. It never traps on input: every malformed byte sequence ends in
/// a thrown `JSONSyntaxError` naming the offset, line and column.
public struct JSONReader: ~Copyable {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    /// Offset of the next byte to read.
    public var offset: Int
    /// Deepest nesting accepted by `skipValue` and `readValue`.
    public static let maxDepth = 256

    /// Reads `bytes`, which must stay valid while the reader is used.
    public init(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// True when only whitespace remains.
    public mutating func atEnd() -> Bool {
        skipWhitespace()
        return offset >= bytes.count
    }

    @inlinable
    public mutating func skipWhitespace() {
        while offset < bytes.count {
            let b = bytes[offset]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { offset += 1 } else { return }
        }
    }

    /// The next non-whitespace byte, without consuming it; nil at the end.
    @inlinable
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte` (after whitespace) or throws naming what was expected.
    public mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what)") }
        offset += 1
    }

    /// Consumes `byte` if it comes next; returns whether it did.
    public mutating func consume(_ byte: UInt8) -> Bool {
        if peek() == byte {
            offset += 1
            return true
        }
        return false
    }

    /// Reads a JSON string, decoding escapes (surrogate pairs included).
    public mutating func readString() throws(JSONSyntaxError) -> String {
        var scratch: [UInt8] = []
        return try readString(into: &scratch)
    }

    /// Reads a JSON string into `scratch` (cleared first) and returns it.
    /// Plain strings with no escapes are copied directly.
    public mutating func readString(into scratch: inout [UInt8]) throws(JSONSyntaxError) -> String {
        try expect(0x22, "a string")
        let start = offset
        // Fast path: no escapes.
        while offset < bytes.count {
            let b = bytes[offset]
            if b == 0x22 {
                let s = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return s
            }
            if b == 0x5C { break }
            if b < 0x20 { throw error("control character in string") }
            offset += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let b = bytes[offset]
            offset += 1
            switch b {
            case 0x22:
                return String(decoding: scratch, as: UTF8.self)
            case 0x5C:
                guard offset < bytes.count else { break }
                let e = bytes[offset]
                offset += 1
                switch e {
                case 0x22, 0x5C, 0x2F: scratch.append(e)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard offset + 1 < bytes.count, bytes[offset] == 0x5C,
                            bytes[offset + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate in string") }
                        offset += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw error("unpaired surrogate in string")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("unpaired surrogate in string")
                    }
                    scratch.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
                default:
                    offset -= 1
                    throw error("invalid escape in string")
                }
            default:
                if b < 0x20 {
                    offset -= 1
                    throw error("control character in string")
                }
                scratch.append(b)
            }
        }
        throw error("unterminated string")
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[offset]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            offset += 1
        }
        return v
    }

    /// Reads a member name with no escapes as raw bytes, without making a
    /// String (nil, with nothing consumed, when it has escapes).
    public mutating func readPlainKey() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        guard peek() == 0x22 else { throw error("expected a member name") }
        let start = offset + 1
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 {
                offset = i + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<i])
            }
            if b == 0x5C || b < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// Reads a JSON number. Integers of up to 15 digits with no fraction or
    /// exponent are converted exactly without a string round trip.
    public mutating func readNumber() throws(JSONSyntaxError) -> Double {
        let (start, end, isInteger) = try scanNumber()
        if isInteger, end - start <= 16 {
            return Double(integerValue(start, end))
        }
        if let fast = fastDecimal(start, end) { return fast }
        let text = String(
            decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            offset = start
            throw error("number out of range")
        }
        return d
    }

    /// Reads a JSON number that must be an integer within Int64 (no fraction, no exponent).
    public mutating func readInt64() throws(JSONSyntaxError) -> Int64 {
        let (start, end, isInteger) = try scanNumber()
        guard isInteger, end - start <= 19 || (end - start == 20 && bytes[start] == 0x2D) else {
            offset = start
            throw error("expected an integer")
        }
        let text = String(
            decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let v = Int64(text) else {
            offset = start
            throw error("integer out of range")
        }
        return v
    }

    /// Clinger's fast path: a decimal with a mantissa below 2^53 and a power
    /// of ten within ±22 is one exactly representable number times or divided
    /// by another, so one IEEE operation rounds it correctly. Nil otherwise.
    private func fastDecimal(_ start: Int, _ end: Int) -> Double? {
        var i = start
        let negative = bytes[i] == 0x2D
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var afterPoint = false
        while i < end {
            let b = bytes[i]
            if b == 0x2E {
                afterPoint = true
            } else if b | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                if mantissa != 0 || b != 0x30 { digits += 1 }
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(b - 0x30)
                if afterPoint { scale -= 1 }
            }
            i += 1
        }
        if i < end {
            i += 1
            var expNegative = false
            if bytes[i] == 0x2B || bytes[i] == 0x2D {
                expNegative = bytes[i] == 0x2D
                i += 1
            }
            var e = 0
            while i < end {
                e = e * 10 + Int(bytes[i] - 0x30)
                guard e < 400 else { return nil }
                i += 1
            }
            scale += expNegative ? -e : e
        }
        guard scale >= -22, scale <= 22 else { return nil }
        var v = Double(mantissa)
        if scale < 0 {
            v /= JSONReader.powersOfTen[-scale]
        } else {
            v *= JSONReader.powersOfTen[scale]
        }
        return negative ? -v : v
    }

    /// 10⁰ … 10²², each exact in a Double.
    public static let powersOfTen: [Double] = (0...22).map { k in
        (0..<k).reduce(1.0) { x, _ in x * 10 }
    }

    private func integerValue(_ start: Int, _ end: Int) -> Int64 {
        var i = start
        var negative = false
        if bytes[i] == 0x2D {
            negative = true
            i += 1
        }
        var v: Int64 = 0
        while i < end {
            v = v * 10 + Int64(bytes[i] - 0x30)
            i += 1
        }
        return negative ? -v : v
    }

    /// Walks the number grammar of RFC 8259 §6; returns its span and whether
    /// it had neither fraction nor exponent.
    private mutating func scanNumber() throws(JSONSyntaxError) -> (Int, Int, Bool) {
        skipWhitespace()
        let start = offset
        var isInteger = true
        if offset < bytes.count, bytes[offset] == 0x2D { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else {
            offset = start
            throw error("expected a number")
        }
        if bytes[offset] == 0x30 {
            offset += 1
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == 0x2E {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                throw error("digit expected after '.'")
            }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == 0x2B || bytes[offset] == 0x2D { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                throw error("digit expected in exponent")
            }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        return (start, offset, isInteger)
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(JSONSyntaxError) -> Bool {
        if readLiteral("true") { return true }
        if readLiteral("false") { return false }
        throw error("expected true or false")
    }

    /// Consumes `null` if it comes next.
    public mutating func readNull() -> Bool { readLiteral("null") }

    private mutating func readLiteral(_ word: StaticString) -> Bool {
        skipWhitespace()
        let n = word.utf8CodeUnitCount
        guard offset + n <= bytes.count else { return false }
        let p = word.utf8Start
        for i in 0..<n where bytes[offset + i] != p[i] { return false }
        offset += n
        return true
    }

    /// Skips one whole value of any kind, checking its syntax.
    public mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) {
        guard depth < JSONReader.maxDepth else { throw error("nesting too deep") }
        switch peek() {
        case 0x22:
            try expect(0x22, "a string")
            while offset < bytes.count {
                let b = bytes[offset]
                offset += 1
                if b == 0x22 { return }
                if b == 0x5C {
                    guard offset < bytes.count else { break }
                    offset += 1
                } else if b < 0x20 {
                    offset -= 1
                    throw error("control character in string")
                }
            }
            throw error("unterminated string")
        case 0x7B:
            offset += 1
            if consume(0x7D) { return }
            repeat {
                try skipString()
                try expect(0x3A, "':'")
                try skipValue(depth: depth + 1)
            } while consume(0x2C)
            try expect(0x7D, "',' or '}'")
        case 0x5B:
            offset += 1
            if consume(0x5D) { return }
            repeat { try skipValue(depth: depth + 1) } while consume(0x2C)
            try expect(0x5D, "',' or ']'")
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard readNull() else { throw error("expected a value") }
        case nil: throw error("expected a value, found the end")
        case 0x2D?, 0x30?, 0x31?, 0x32?, 0x33?, 0x34?, 0x35?, 0x36?, 0x37?, 0x38?, 0x39?:
            _ = try scanNumber()
        default: throw error("expected a value")
        }
    }

    private mutating func skipString() throws(JSONSyntaxError) {
        guard peek() == 0x22 else { throw error("expected a member name") }
        try skipValue()
    }

    /// Reads one whole value as a tree.
    public mutating func readValue(depth: Int = 0) throws(JSONSyntaxError) -> JSONValue {
        guard depth < JSONReader.maxDepth else { throw error("nesting too deep") }
        switch peek() {
        case 0x22: return .string(try readString())
        case 0x7B:
            offset += 1
            var members: [(key: String, value: JSONValue)] = []
            if consume(0x7D) { return .object(members) }
            repeat {
                guard peek() == 0x22 else { throw error("expected a member name") }
                let key = try readString()
                try expect(0x3A, "':'")
                members.append((key, try readValue(depth: depth + 1)))
            } while consume(0x2C)
            try expect(0x7D, "',' or '}'")
            return .object(members)
        case 0x5B:
            offset += 1
            var items: [JSONValue] = []
            if consume(0x5D) { return .array(items) }
            repeat { items.append(try readValue(depth: depth + 1)) } while consume(0x2C)
            try expect(0x5D, "',' or ']'")
            return .array(items)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try readBool())
        case UInt8(ascii: "n"):
            guard readNull() else { throw error("expected a value") }
            return .null
        case nil: throw error("expected a value, found the end")
        case 0x2D?, 0x30?, 0x31?, 0x32?, 0x33?, 0x34?, 0x35?, 0x36?, 0x37?, 0x38?, 0x39?:
            return .number(try readNumber())
        default: throw error("expected a value")
        }
    }

    /// An error at the current offset, with its line and column (1-based).
    public func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        let end = min(offset, bytes.count)
        for i in 0..<end {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, offset: offset, line: line, column: column)
    }

    /// Parses a whole document: exactly one value, then only whitespace.
    public static func parseDocument(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buf in
            var reader = JSONReader(buf)
            do throws(JSONSyntaxError) {
                let v = try reader.readValue()
                guard reader.atEnd() else { throw reader.error("unexpected text after the value") }
                return .success(v)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// Malformed JSON, with where it went wrong.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// Byte offset from the start of the input.
    public let offset: Int
    /// 1-based line and column (columns count bytes).
    public let line: Int
    public let column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}
