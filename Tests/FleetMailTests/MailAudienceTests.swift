import FleetJSON
import FleetStorage
import Testing

/// Whom a rule reaches and about which vehicles, from the users as they
/// are; a rule's JSON read with every problem named.
@Suite struct MailAudienceTests {
    let users: [String: UserRecord] = [
        "west": UserRecord(
            name: "west", role: .viewer, passwordHash: "", createdMs: 0, groups: ["West"],
            email: "w@fleet.test"),
        "both": UserRecord(
            name: "both", role: .operator, passwordHash: "", createdMs: 0,
            groups: ["West", "East"], email: "W@fleet.test"),
        "boss": UserRecord(name: "boss", role: .admin, passwordHash: "", createdMs: 0),
        "drv": UserRecord(
            name: "drv", role: .driver, passwordHash: "", createdMs: 0, device: "v1",
            email: "d@fleet.test"),
    ]

    @Test func aRuleMailsOnlyWhatEveryUserItNamesSees() {
        func audience(_ to: [String]) -> DeviceScope {
            MailAudience.resolve(MailRule(name: "r", to: to), users: users).audience
        }
        #expect(audience(["ops@fleet.test"]) == .all)
        #expect(audience(["boss"]) == .all)
        #expect(audience(["west", "ops@fleet.test"]) == .groups(["West"]))
        #expect(audience(["west", "both"]) == .groups(["West"]))
        #expect(audience(["drv"]) == .none)
        #expect(audience(["gone"]) == .none)
        var rule = MailAudience.resolve(MailRule(name: "r", to: ["west"]), users: users)
        let alert = AlertRecord(
            id: 1, time: 0, device: "v2", type: "geofence_enter", fence: nil, lat: 0, lon: 0,
            details: nil)
        #expect(rule.matches(alert, group: "West") && !rule.matches(alert, group: "East"))
        #expect(!rule.matches(alert, group: nil) && rule.needsGroups)
        rule.audience = .all
        #expect(rule.matches(alert, group: nil))
    }

    @Test func addressesAreTheRulesAndTheNamedUsersEmailsOnce() {
        let rule = MailRule(name: "r", to: ["west", "w@fleet.test", "both", "boss", "x@y.z"])
        // boss has no email; both's differs from west's only in case.
        #expect(MailAudience.addresses(rule, users: users) == ["w@fleet.test", "x@y.z"])
    }

    @Test func scopesMeetInWhatBothAdmit() {
        #expect(DeviceScope.all.intersection(.groups(["A"])) == .groups(["A"]))
        #expect(
            DeviceScope.groups(["A", "B"]).intersection(.groups(["B", "C"])) == .groups(["B"]))
        #expect(DeviceScope.device("v").intersection(.device("v")) == .device("v"))
        #expect(DeviceScope.device("v").intersection(.groups(["A"])) == .none)
        #expect(!DeviceScope.none.admits(device: "v", group: "A"))
    }

    @Test func aRulesJSONIsReadWithEveryProblemNamed() throws {
        func read(_ text: String) throws -> (MailRule, [String]) {
            let doc = try JSONReader.parseDocument(Array(text.utf8))
            guard case .object(let m) = doc else {
                return (MailRule(name: "r", to: []), ["not an object"])
            }
            return MailRule.read(name: "r", m)
        }
        let (ok, none) = try read(
            #"{"to":["ann"],"types":["overspeed_start"],"digest_s":60,"quiet_hours":"22:00-06:00","time_zone":"Europe/Paris","origin":"config","created_by":"x"}"#
        )
        #expect(none.isEmpty, "\(none)")
        #expect(ok.digestS == 60 && ok.quietHours?.description == "22:00-06:00")
        #expect(ok.origin == .config && ok.createdBy == nil, "origin and created_by are not read")
        let (_, problems) = try read(
            #"{"name":"other","to":["a b"],"types":["enter"],"digest_s":1.5,"quiet_hours":"late","time_zone":"Mars/Base","extra":1}"#
        )
        for key in ["name", "to", "types", "digest_s", "quiet_hours", "time_zone", "extra"] {
            #expect(problems.contains { $0.hasPrefix(key + ":") }, "\(key) not named: \(problems)")
        }
        let (_, missing) = try read("{}")
        #expect(missing == ["to: is needed: addresses, or users by name"])
        // What it encodes is what it reads back.
        let text = RecordCoding.line(ok)
        let back = try #require(MailRule.stored(name: "r", json: text, createdBy: "user:ann"))
        #expect(back.to == ok.to && back.types == ok.types && back.timeZone == ok.timeZone)
        #expect(back.origin == .api && back.createdBy == "user:ann")
    }
}
