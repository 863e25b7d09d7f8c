/// Adds `*hh` to an NMEA sentence body (`$` included, no checksum).
func nmea(_ body: String) -> String {
    var sum: UInt8 = 0
    for b in body.utf8.dropFirst() { sum ^= b }
    return body + "*" + (sum < 16 ? "0" : "") + String(sum, radix: 16, uppercase: true)
}
