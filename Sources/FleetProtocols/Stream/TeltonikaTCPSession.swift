import FleetModel

/// Teltonika AVL over TCP, one connection (Teltonika, "Codec" and "Help
/// with Server FAQ"; `docs/protocols.md`, "Teltonika over TCP"):
///
/// 1. the IMEI handshake: 2-byte length, ASCII digits. Answered `01` when
///    the IMEI is registered (or the registry is open), else `00` and the
///    connection is closed (`unknown_device`); a malformed one is closed
///    with `bad_imei`.
/// 2. AVL frames: `00000000`, data length (4), codec 8 / 8E / 16, count,
///    records, count, CRC-16/IBM (4) over codec … count. Every record
///    belongs to the handshake's IMEI. Answered with the 4-byte record
///    count once the records are committed; a frame whose CRC, counts or
///    records do not check is refused with its reason and not answered
///    (the device sends it again).
/// 3. The keep-alive byte `FF` between frames, not answered.
/// 4. Codec 12 type 6 frames: the device's answer to a command.
///
/// A wrong preamble or a length below 3 or above `maxFrame` loses the
/// framing: the connection is closed (`bad_frame`, `oversize`).
public final class TeltonikaTCPSession: StreamSession {
    public let trackerProtocol = TrackerProtocol.teltonikaTCP
    public private(set) var device: String?
    /// The largest frame taken (preamble … CRC), bytes.
    public let maxFrame: Int

    public init(maxFrame: Int = 16384) { self.maxFrame = maxFrame }

    public func next(_ b: UnsafeBufferPointer<UInt8>, nowMs: Int64, known: (String) -> Bool)
        -> StreamStep
    {
        guard let imei = device else { return handshake(b, known: known) }
        guard !b.isEmpty else { return .needMore }
        if b[0] == 0xFF { return .unit(consumed: 1, .answer([])) }
        guard b.count >= 8 else { return .needMore }
        guard b[0] == 0, b[1] == 0, b[2] == 0, b[3] == 0 else {
            return close(.badFrame, "frame preamble is not 00000000")
        }
        let length = Int(b[4]) << 24 | Int(b[5]) << 16 | Int(b[6]) << 8 | Int(b[7])
        let total = 12 + length
        guard total <= maxFrame else {
            return close(.oversize, "frame of \(total) bytes (at most \(maxFrame))")
        }
        guard length >= 3 else {
            return close(.badLength, "data length \(length) (a frame holds at least 3 bytes)")
        }
        guard b.count >= total else { return .needMore }
        let data = UnsafeBufferPointer(rebasing: b[8..<(8 + length)])
        let sent =
            UInt32(b[total - 4]) << 24 | UInt32(b[total - 3]) << 16
            | UInt32(b[total - 2]) << 8 | UInt32(b[total - 1])
        let computed = CRC16.ibm(data)
        guard sent == UInt32(computed) else {
            return .unit(
                consumed: total,
                .refused(
                    Rejection(
                        .badCRC,
                        "CRC 0x\(CRC16.hex(sent)) sent, 0x\(CRC16.hex(UInt32(computed))) computed over \(length) bytes"
                    )))
        }
        return .unit(consumed: total, frame(data, imei: imei))
    }

    /// The IMEI message at the start of `b`.
    private func handshake(_ b: UnsafeBufferPointer<UInt8>, known: (String) -> Bool) -> StreamStep {
        guard b.count >= 2 else { return .needMore }
        let length = Int(b[0]) << 8 | Int(b[1])
        guard (1...20).contains(length) else {
            return close(
                length == 0 ? .noIdentity : .badIMEI,
                length == 0
                    ? "a data frame before the IMEI handshake"
                    : "IMEI length \(length) (expected 1–20, normally 15)", answer: [0])
        }
        guard b.count >= 2 + length else { return .needMore }
        let digits = UnsafeBufferPointer(rebasing: b[2..<(2 + length)])
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return close(.badIMEI, "IMEI is not ASCII digits", answer: [0])
        }
        let imei = String(decoding: digits, as: UTF8.self)
        guard known(imei) else {
            return close(.unknownDevice, "IMEI \(imei) is not registered", answer: [0])
        }
        device = imei
        return .unit(consumed: 2 + length, .answer([1]))
    }

    /// One frame's data (codec id … second count), its CRC checked.
    private func frame(_ data: UnsafeBufferPointer<UInt8>, imei: String) -> StreamUnit {
        var r = ByteReader(data)
        do throws(ByteReader.End) {
            let codec = try r.u8("codec id")
            if codec == 0x0C { return try commandAnswer(&r) }
            guard codec == 0x08 || codec == 0x8E || codec == 0x10 else {
                return .refused(
                    Rejection(
                        .unsupportedCodec,
                        "codec 0x\(String(codec, radix: 16)) (takes 0x08, 0x8E, 0x10 and 0x0C answers)"
                    ))
            }
            let count = Int(try r.u8("record count"))
            var fixes: [Fix] = []
            fixes.reserveCapacity(count)
            for i in 0..<count {
                switch try TeltonikaDecoder.record(&r, codec: codec, imei: imei, index: i) {
                case .success(let f): fixes.append(f)
                case .failure(let e): return .refused(Rejection(e.reason, e.detail))
                }
            }
            let count2 = Int(try r.u8("second record count"))
            guard count2 == count else {
                return .refused(
                    Rejection(.countMismatch, "record counts \(count) and \(count2) differ"))
            }
            guard r.remaining == 0 else {
                return .refused(
                    Rejection(.trailingBytes, "\(r.remaining) bytes after the last record count"))
            }
            let n = UInt32(count)
            return .fixes(
                WireDecoding(
                    fixes: fixes,
                    reply: WireReply(inline: 4) { i in UInt8(truncatingIfNeeded: n >> (24 - 8 * i))
                    }
                ))
        } catch {
            return .refused(
                Rejection(.truncated, "ends inside the \(error.field) at byte \(error.offset)"))
        }
    }

    /// A Codec 12 frame from the device: type 6 is its answer to a command.
    private func commandAnswer(_ r: inout ByteReader) throws(ByteReader.End) -> StreamUnit {
        _ = try r.u8("quantity")
        let type = try r.u8("type")
        let size = Int(try r.u32("response size"))
        let text = try r.bytes(size, "response")
        _ = try r.u8("second quantity")
        guard type == 0x06, r.remaining == 0 else {
            return .refused(
                Rejection(
                    .unsupportedCodec,
                    type == 0x06
                        ? "\(r.remaining) bytes after a Codec 12 answer"
                        : "Codec 12 type \(type) from a device (takes 6, an answer)"))
        }
        return .commandAnswer(String(decoding: text, as: UTF8.self))
    }

    public func locate(fix index: Int, in d: WireDecoding) -> String {
        "IMEI \(d.fixes[index].device) record \(index)"
    }

    public func command(_ text: String, nowMs: Int64) -> [UInt8]? {
        device == nil ? nil : Self.commandFrame(text)
    }

    /// The Codec 12 frame that sends `command` (the device's own command
    /// text, `getinfo`, `setdigout 1`) to a device: type 5, CRC-16/IBM.
    public static func commandFrame(_ command: String) -> [UInt8] {
        let text = Array(command.utf8)
        var data: [UInt8] = [0x0C, 0x01, 0x05]
        data += be32(UInt32(text.count)) + text + [0x01]
        return [0, 0, 0, 0] + be32(UInt32(data.count)) + data + be32(UInt32(CRC16.ibm(data)))
    }

}

func be32(_ v: UInt32) -> [UInt8] {
    [
        UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
        UInt8(truncatingIfNeeded: v),
    ]
}
