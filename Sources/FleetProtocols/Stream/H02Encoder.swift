import Foundation

/// Builds H02 messages as a device sends them: for the simulator and the tests.
public enum H02Encoder {
    /// A `V1` position at UTC `timeMs` (speed sent in knots, the status
    /// word's bit 10 set for ignition on).
    public static func v1(
        id: String, timeMs: Int64, lat: Double, lon: Double, speedKmh: Double, course: Double,
        valid: Bool = true, ignition: Bool = false
    ) -> [UInt8] {
        let (y, mo, d, h, mi, s) = GT06Encoder.civil(timeMs)
        func dm(_ v: Double, _ width: Int) -> String {
            let deg = Int(v.magnitude)
            let min = (v.magnitude - Double(deg)) * 60
            return String(format: "%0\(width)d%07.4f", deg, min)
        }
        let status = ignition ? "FFFFFFFF" : "FFFFFBFF"
        let text = String(
            format: "*HQ,%@,V1,%02d%02d%02d,%@,%@,%@,%@,%@,%.2f,%.0f,%02d%02d%02d,%@#",
            id, h, mi, s, valid ? "A" : "V", dm(lat, 2), lat < 0 ? "S" : "N", dm(lon, 3),
            lon < 0 ? "W" : "E", speedKmh / 1.852, course, d, mo, y % 100, status)
        return Array(text.utf8)
    }

    /// A heartbeat.
    public static func heartbeat(id: String) -> [UInt8] { Array("*HQ,\(id),HTBT,100#".utf8) }
}
