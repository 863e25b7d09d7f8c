import FleetMail
import FleetStorage
import Foundation
import Testing

/// Messages as written: headers that cannot be injected into, 7-bit lines
/// no longer than RFC 5322 allows, non-ASCII subjects as RFC 2047 words.
@Suite struct MailMessageTests {
    let alert = AlertRecord(
        id: 17, time: 1_764_280_000_000, device: "truck-7", type: "geofence_enter",
        fence: "depot", lat: 48.05, lon: 11.05, details: nil)

    @Test func linesAreSevenBitAndShortAndTheBodyDecodes() {
        let m = MailMessage(
            from: "fleetd@fleet.test", to: ["a@b.test"],
            subject: "Tür – überfällig " + String(repeating: "é", count: 60),
            messageId: "<x@fleet.test>", dateMs: 1_764_280_000_000,
            text: String(repeating: "ä", count: 500) + "\n.leading dot", html: "<p>ü</p>")
        let text = m.rendered()
        for line in text.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 78, "\(line)")
            #expect(line.utf8.allSatisfy { $0 < 0x80 }, "\(line)")
        }
        #expect(text.contains("Subject: =?UTF-8?B?"))
        #expect(text.contains("Date: Thu, 27 Nov 2025 21:46:40 +0000"))
        #expect(text.contains("Message-ID: <x@fleet.test>"))
        #expect(text.contains("Content-Type: multipart/alternative"))
    }

    @Test func aRuleMailNamesTheVehicleTheFenceAndTheLocalTime() {
        let rule = MailRule(name: "ops", to: ["ops@fleet.test"], timeZone: "America/New_York")
        let mail = AlertMail(
            deviceNames: ["truck-7": "Truck <7>"], fenceNames: ["depot": "Depot North"],
            consoleURL: "https://fleet.example.com/")
        let m = mail.message(
            rule: rule, alerts: [alert], from: "fleetd@fleet.test", messageId: "<x@y>", dateMs: 0)
        #expect(m.subject == "[fleetd] Truck <7>: entered Depot North (depot)")
        #expect(
            m.text.contains(
                "2025-11-27 16:46:40 -05:00  Truck <7> (truck-7): entered Depot North (depot)"))
        #expect(m.text.contains("[alert 17]"))
        #expect(m.text.contains("https://fleet.example.com/console/"))
        #expect(m.html.contains("Truck &lt;7&gt;"))
        #expect(!m.html.contains("Truck <7>"))
    }

    @Test func addressesThatCouldInjectAreRefused() {
        #expect(MailAddress.problem("ops@fleet.test") == nil)
        for bad in [
            "", "ops", "@fleet.test", "ops@", "a b@c.d", "a@b.c\r\nBcc: x@y.z", "a@b.c>", "<a@b.c",
            "a,b@c.d", "ä@b.c", "a@b..c", String(repeating: "a", count: 250) + "@b.cd",
        ] {
            #expect(MailAddress.problem(bad) != nil, "\(bad)")
        }
    }
}
