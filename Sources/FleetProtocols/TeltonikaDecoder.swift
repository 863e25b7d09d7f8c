import FleetModel

/// Decodes Teltonika AVL datagrams sent over UDP: Codec 8, Codec 8 Extended
/// and Codec 16 (see `docs/protocols.md`, "Teltonika", and Teltonika's "Data Sending
/// Protocols" pages).
///
/// Strict: the length field must equal the datagram's size − 2, the IMEI
/// must be 1–20 ASCII digits, both record counts must agree, every record
/// must be complete with coordinates in range, and the walk must end exactly
/// on the last byte. Anything else is rejected whole with a reason (no
/// reply, so the device resends). Pure: bytes in, packet or rejection out;
/// never traps on any input.
public enum TeltonikaDecoder {
    public struct Failure: Error, Sendable, Equatable {
        public var reason: RejectReason
        public var detail: String
    }

    public static func decode(_ bytes: [UInt8]) -> Result<TeltonikaPacket, Failure> {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    public static func decode(_ b: UnsafeBufferPointer<UInt8>) -> Result<TeltonikaPacket, Failure> {
        var r = ByteReader(b)
        do {
            let length = try r.u16("length")
            guard Int(length) == b.count - 2 else {
                return .failure(
                    Failure(
                        reason: .badLength,
                        detail: "length field \(length), datagram has \(b.count - 2) bytes after it"
                    ))
            }
            let packetId = try r.u16("packet id")
            _ = try r.u8("packet type")
            let avlId = try r.u8("AVL packet id")
            let imeiLength = Int(try r.u16("IMEI length"))
            guard (1...20).contains(imeiLength) else {
                return .failure(
                    Failure(
                        reason: .badIMEI,
                        detail: "IMEI length \(imeiLength) (expected 1–20, normally 15)"))
            }
            let imeiBytes = try r.bytes(imeiLength, "IMEI")
            guard imeiBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return .failure(Failure(reason: .badIMEI, detail: "IMEI is not ASCII digits"))
            }
            let imei = String(decoding: imeiBytes, as: UTF8.self)
            let codec = try r.u8("codec id")
            guard codec == 0x08 || codec == 0x8E || codec == 0x10 else {
                return .failure(
                    Failure(
                        reason: .unsupportedCodec,
                        detail: "codec 0x\(String(codec, radix: 16)) (takes 0x08, 0x8E, 0x10)"))
            }
            let count = Int(try r.u8("record count"))
            var fixes: [Fix] = []
            fixes.reserveCapacity(count)
            for i in 0..<count {
                switch try record(&r, codec: codec, imei: imei, index: i) {
                case .success(let f): fixes.append(f)
                case .failure(let e): return .failure(e)
                }
            }
            let count2 = Int(try r.u8("second record count"))
            guard count2 == count else {
                return .failure(
                    Failure(
                        reason: .countMismatch,
                        detail: "record counts \(count) and \(count2) differ"))
            }
            guard r.remaining == 0 else {
                return .failure(
                    Failure(
                        reason: .trailingBytes,
                        detail: "\(r.remaining) bytes after the last record count"))
            }
            return .success(
                TeltonikaPacket(
                    packetId: packetId, avlPacketId: avlId, imei: imei, codec: codec, fixes: fixes))
        } catch {
            return .failure(
                Failure(
                    reason: .truncated,
                    detail: "ends inside the \(error.field) at byte \(error.offset)"))
        }
    }

    static func record(_ r: inout ByteReader, codec: UInt8, imei: String, index: Int)
        throws(ByteReader.End) -> Result<Fix, Failure>
    {
        let time = try r.u64("record \(index) timestamp")
        let priority = try r.u8("record \(index) priority")
        let lon = Double(Int32(bitPattern: try r.u32("record \(index) longitude"))) / 10_000_000
        let lat = Double(Int32(bitPattern: try r.u32("record \(index) latitude"))) / 10_000_000
        let alt = Int16(bitPattern: try r.u16("record \(index) altitude"))
        let angle = try r.u16("record \(index) angle")
        let sats = try r.u8("record \(index) satellites")
        let speed = try r.u16("record \(index) speed")
        guard abs(lat) <= 90, abs(lon) <= 180 else {
            return .failure(
                Failure(
                    reason: abs(lat) > 90 ? .latOutOfRange : .lonOutOfRange,
                    detail: "record \(index): latitude \(lat), longitude \(lon)"))
        }
        guard time <= UInt64(Int64.max) else {
            return .failure(
                Failure(reason: .badTime, detail: "record \(index): timestamp \(time) out of range")
            )
        }
        var extra = FixExtra()
        extra.priority = Int(priority)
        let ioStart = r.i
        var ignition: Bool?
        switch TeltonikaIO.walk(
            &r, codec: codec, index: index,
            { id, value in
                switch id {
                case 239: ignition = value != 0
                case 240: extra.movement = value != 0
                case 21: extra.gsmSignal = Int(clamping: value)
                case 66: extra.externalVoltageMv = Int(clamping: value)
                case 16: extra.odometerM = Int(clamping: value)
                case 69: extra.gnssStatus = Int(clamping: value)
                case 182: extra.hdop = Double(value) / 10  // GNSS HDOP, tenths
                case 78: extra.driver = value == 0 ? "" : Self.hex16(value)  // iButton
                case 247, 253, 246, 252, 249:
                    if let kind = Self.alarm(io: id, value: value),
                        Self.alarmRank(kind) > extra.alarm.map(Self.alarmRank) ?? -1
                    {
                        extra.alarm = kind
                    }

                default: break
                }
            })
        {
        case .failure(let e): throw e
        case .success(let seen):
            if let problem = seen {
                return .failure(Failure(reason: .countMismatch, detail: problem))
            }
        }
        if r.i > ioStart {
            extra.ioRaw = Array(UnsafeBufferPointer(rebasing: r.b[ioStart..<r.i]))
            extra.ioCodec = codec
        }
        let valid = sats > 0 && !(lat == 0 && lon == 0)
        return .success(
            Fix(
                device: imei, time: Int64(time), lat: lat, lon: lon, speedKmh: Double(speed),
                course: Double(angle),
                altM: Double(alt), sats: Int(sats), ignition: ignition, valid: valid, extra: extra))
    }
}

/// Reads big-endian integers from bytes, throwing where the bytes end.
struct ByteReader {
    struct End: Error {
        let field: String
        let offset: Int
    }

    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    var remaining: Int { b.count - i }

    mutating func unsigned(_ n: Int, _ field: @autoclosure () -> String) throws(End) -> UInt64 {
        guard remaining >= n else { throw End(field: field(), offset: i) }
        var v: UInt64 = 0
        for k in 0..<n { v = v << 8 | UInt64(b[i + k]) }
        i += n
        return v
    }

    mutating func u8(_ field: @autoclosure () -> String) throws(End) -> UInt8 {
        UInt8(try unsigned(1, field()))
    }
    mutating func u16(_ field: @autoclosure () -> String) throws(End) -> UInt16 {
        UInt16(try unsigned(2, field()))
    }
    mutating func u32(_ field: @autoclosure () -> String) throws(End) -> UInt32 {
        UInt32(try unsigned(4, field()))
    }
    mutating func u64(_ field: @autoclosure () -> String) throws(End) -> UInt64 {
        try unsigned(8, field())
    }

    mutating func bytes(_ n: Int, _ field: @autoclosure () -> String) throws(End)
        -> UnsafeBufferPointer<UInt8>
    {
        guard remaining >= n else { throw End(field: field(), offset: i) }
        defer { i += n }
        return UnsafeBufferPointer(rebasing: b[i..<(i + n)])
    }
}
