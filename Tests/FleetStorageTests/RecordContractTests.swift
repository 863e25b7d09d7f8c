import FleetJSON
import FleetModel
import FleetStorage
import Foundation
import Testing

/// The JSON records other tools read: their field names are a contract
/// (added, never renamed), and each reads back what it wrote.
@Suite struct RecordContractTests {
    func keys(_ line: String) throws -> Set<String> {
        Set(try object(line).map(\.key))
    }

    func object(_ line: String) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONReader.parseDocument(Array(line.utf8)) else {
            Issue.record("not an object: \(line)")
            return [:]
        }
        return Dictionary(members, uniquingKeysWith: { a, _ in a })
    }

    let alert = AlertRecord(
        id: 7, time: 1_700_000_000_123, device: "truck-1", type: "geofence_exit", fence: "depot",
        lat: 48.1, lon: 11.5, details: #"{"duration_s":10,"crossed":true}"#)

    @Test func alertsKeepTheirFieldsAndTheLogLineIsTheCodableForm() throws {
        let coded = RecordCoding.line(alert)
        #expect(
            try keys(coded) == [
                "id", "time", "device", "type", "fence", "lat", "lon", "duration_s", "crossed",
            ])
        // The alert log's hand-written line says exactly the same.
        #expect(try object(alert.jsonLine) == object(coded))
        let back = try RecordCoding.read(AlertRecord.self, from: Array(coded.utf8))
        #expect(back.id == 7 && back.time == alert.time && back.fence == "depot")
        #expect(back.details == #"{"crossed":true,"duration_s":10}"#)
        let plain = AlertRecord(
            id: 1, time: 0, device: "d", type: "device_silent", fence: nil, lat: nil, lon: nil,
            details: nil)
        #expect(try RecordCoding.read(AlertRecord.self, from: Array(plain.jsonLine.utf8)) == plain)
    }

    @Test func anAcknowledgedAlertSaysWhoAndWhenInBothForms() throws {
        var acked = alert
        acked.ackedBy = "user:ana"
        acked.ackedMs = 1_700_000_100_000
        let coded = RecordCoding.line(acked)
        #expect(try keys(coded).isSuperset(of: ["acked_by", "acked_at"]))
        #expect(try object(acked.jsonLine) == object(coded))
        let back = try RecordCoding.read(AlertRecord.self, from: Array(coded.utf8))
        #expect(back.ackedBy == "user:ana" && back.ackedMs == 1_700_000_100_000)
    }

    @Test func tripsKeepTheirFieldsAndReadBack() throws {
        let t = TripRecord(
            id: 3, device: "d", vehicle: "Van", startTime: 1_700_000_000_000,
            endTime: 1_700_000_600_000, startLat: 48, startLon: 11, endLat: 48.1, endLon: 11.1,
            startFence: "depot", endFence: nil, distanceM: 5000, maxSpeedKmh: 72.5, fixes: 120,
            startOdometerM: 100, endOdometerM: 5100, startFenceId: "depot-1", lateDetourM: 41.5,
            driver: "00000000CAFE0001")
        #expect(
            try keys(t.jsonLine) == [
                "id", "device", "vehicle", "start_time", "end_time", "start_lat", "start_lon",
                "end_lat", "end_lon", "start_fence", "end_fence", "distance_m", "duration_s",
                "max_speed_kmh", "avg_speed_kmh", "fixes", "start_odometer_m", "end_odometer_m",
                "open", "start_fence_id", "end_fence_id", "late_detour_m", "driver",
            ])
        #expect(try RecordCoding.read(TripRecord.self, from: Array(t.jsonLine.utf8)) == t)
        #expect(t.jsonLine.contains(#""avg_speed_kmh":30"#))
        // A trip under way has no id yet.
        var open = t
        open.open = true
        #expect(open.jsonLine.contains(#""id":null,"#) && open.jsonLine.contains(#""open":true"#))
        var back = try RecordCoding.read(TripRecord.self, from: Array(open.jsonLine.utf8))
        back.id = 3
        #expect(back == open)
    }

    @Test func devicesKeepTheirFieldsAndReadBack() throws {
        let d = DeviceRecord(
            ident: "d", name: "Van", plate: nil, vin: nil, registered: true, positions: 9,
            lastFix: 1_700_000_000_000, odometerM: 1234.5, silent: false)
        let line = RecordCoding.line(d)
        #expect(
            try keys(line) == [
                "device", "name", "plate", "vin", "registered", "positions", "odometer_m", "silent",
                "last_fix", "group",
            ])
        #expect(try RecordCoding.read(DeviceRecord.self, from: Array(line.utf8)) == d)
    }

    @Test func positionsKeepTheirFieldsAndReadBack() throws {
        var x = FixExtra()
        x.priority = 1
        x.hdop = 0.9
        let p = PositionRecord(
            fix: Fix(
                device: "d", time: 1_700_000_000_000, lat: 48.1, lon: 11.5, speedKmh: 50,
                sats: 9, valid: true, extra: x),
            disposition: 4)
        let line = RecordCoding.line(p)
        #expect(
            try keys(line) == [
                "device", "time", "lat", "lon", "speed_kmh", "course", "alt_m", "accuracy_m",
                "sats",
                "ignition", "valid", "flag", "priority", "movement", "gsm_signal", "ext_voltage_mv",
                "odometer_m", "gnss_status", "fix_quality", "hdop", "io", "battery", "charging",
                "attributes",
            ])
        #expect(line.contains(#""flag":"jump""#))
        #expect(try RecordCoding.read(PositionRecord.self, from: Array(line.utf8)) == p)
    }

    @Test func thePositionsHandWrittenLineSaysTheSameAsItsCodableForm() throws {
        var full = FixExtra()
        full.priority = 1
        full.movement = true
        full.gsmSignal = 4
        full.externalVoltageMv = 12_600
        full.odometerM = 123_456
        full.gnssStatus = 1
        full.fixQuality = 2
        full.hdop = 0.9
        full.ioRaw = [1, 0xEF, 1]
        full.ioCodec = 0x8E
        full.batteryPercent = 87.5
        full.charging = false
        full.attributes = #"{"alarm":"sos","mock":false,"cell":[1,2]}"#
        let cases = [
            PositionRecord(
                fix: Fix(device: "d", time: 1_700_000_000_123, lat: 48.1, lon: 11.5, valid: true),
                disposition: 0),
            PositionRecord(
                fix: Fix(
                    device: "ph\"one", time: -5, lat: -33.868_820_1, lon: 151.209_296,
                    speedKmh: 50.5, course: 359.9, altM: -12, accuracyM: 3.25, sats: 9,
                    ignition: false, valid: false, extra: full),
                disposition: 3),
        ]
        for p in cases {
            // Compared as unordered objects: attributes keep the order they came in.
            let a = try JSONSerialization.jsonObject(with: Data(p.jsonLine.utf8)) as? NSDictionary
            let b =
                try JSONSerialization.jsonObject(with: Data(RecordCoding.line(p).utf8))
                as? NSDictionary
            #expect(
                a != nil && a == b,
                "\(p.jsonLine)\n\(RecordCoding.line(p))")
        }
    }

    @Test func theStatusReadsBackAndItsPathIsBesideTheDatabase() throws {
        let s = DaemonStatus(
            pid: 42, state: "running", timeMs: 2, startedMs: 1, listening: "json 127.0.0.1:5055",
            fixesPerS: 10, datagrams: 5, fixesIn: 10, fixesStored: 9, alerts: 1, commits: 2,
            queueFixes: 0, statesUnwritten: 3, lastCommitMs: 2, storageError: nil,
            rejected: ["json/json_syntax": 1])
        let line = RecordCoding.line(s)
        #expect(line.contains(#""storage_error":null"#))
        #expect(try RecordCoding.read(DaemonStatus.self, from: Array(line.utf8)) == s)
        #expect(DaemonStatus.path(database: "var/fleetd.db") == "var/fleetd.db.status.json")
    }

    @Test func aBadTimeIsAnErrorNamingTheField() {
        let bad =
            #"{"id":1,"time":"yesterday","device":"d","type":"t","fence":null,"lat":null,"lon":null}"#
        #expect(throws: DecodingError.self) {
            try RecordCoding.read(AlertRecord.self, from: Array(bad.utf8))
        }
    }
}
