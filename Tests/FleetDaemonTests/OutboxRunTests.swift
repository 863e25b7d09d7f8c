import FleetStorage
import FleetTracking
import Testing

@testable import FleetDaemon

/// The commit stage's outbox: runs of consecutive alerts owed to the same
/// subscriptions, each alert in the run of exactly the subscriptions whose
/// rules it matches.
@Suite struct OutboxRunTests {
    func hook(_ name: String, types: [String] = [], devices: [String] = []) -> WebhookMatcher {
        WebhookMatcher(
            WebhookSubscription(
                name: name, url: "https://example.com/\(name)", secret: "whsec_test",
                types: types, devices: devices))
    }

    func alert(_ type: AlertType, _ device: String) -> Alert {
        Alert(type: type, device: device, time: 1000, fence: "depot", lat: 48, lon: 11)
    }

    /// Each alert is in the runs of exactly the hooks whose rules it
    /// matches, in their order.
    func expectEachOwedItsMatches(
        _ runs: [(alerts: Range<Int>, webhooks: [String])], _ alerts: [Alert],
        _ hooks: [WebhookMatcher], _ context: String
    ) {
        for (k, a) in alerts.enumerated() {
            let owed = runs.filter { $0.alerts.contains(k) }.flatMap(\.webhooks)
            let matching = hooks.filter {
                $0.matches(type: a.type.rawValue, device: a.device, fence: a.fence)
            }.map(\.name)
            #expect(owed == matching, "\(context)alert \(k)")
        }
    }

    @Test func alertsOwedAlikeShareARunAndEveryAlertIsOwedToItsMatches() {
        let hooks = [
            hook("all"), hook("exits", types: ["geofence_exit"]), hook("t1", devices: ["t1"]),
        ]
        let alerts = [
            alert(.geofenceEnter, "t0"), alert(.geofenceEnter, "t2"), alert(.geofenceEnter, "t3"),
            alert(.geofenceExit, "t0"), alert(.geofenceExit, "t1"), alert(.geofenceEnter, "t1"),
            alert(.geofenceEnter, "t0"),
        ]
        let runs = CommitStage.outbox(for: alerts, hooks)
        #expect(runs.map(\.alerts) == [0..<3, 3..<4, 4..<5, 5..<6, 6..<7])
        #expect(
            runs.map(\.webhooks) == [
                ["all"], ["all", "exits"], ["all", "exits", "t1"], ["all", "t1"], ["all"],
            ])
        // Whatever the runs, each alert is owed to exactly the hooks it matches.
        expectEachOwedItsMatches(runs, alerts, hooks, "")
    }

    @Test func anAlertOwedToNobodyBreaksTheRun() {
        let hooks = [hook("exits", types: ["geofence_exit"])]
        let alerts = [
            alert(.geofenceExit, "a"), alert(.geofenceEnter, "a"), alert(.geofenceExit, "b"),
            alert(.geofenceExit, "c"),
        ]
        let runs = CommitStage.outbox(for: alerts, hooks)
        #expect(runs.map(\.alerts) == [0..<1, 2..<4])
        #expect(CommitStage.outbox(for: alerts, []).isEmpty)
    }

    /// Against the definition, on random subscriptions (filters on type,
    /// device and fence, alone and together) and random alerts: each alert
    /// is owed to exactly the subscriptions it matches, in their order, and
    /// two adjacent runs never list the same subscriptions.
    @Test func randomAlertsAreOwedToExactlyTheirMatchesInMaximalRuns() {
        var rng = SystemRandomNumberGenerator()
        let types = AlertType.allCases
        for round in 0..<200 {
            let hooks = (0..<Int.random(in: 0...6, using: &rng)).map { i in
                WebhookMatcher(
                    WebhookSubscription(
                        name: "h\(i)", url: "https://example.com/h\(i)", secret: "whsec_test",
                        types: Bool.random(using: &rng)
                            ? [] : [types.randomElement(using: &rng)!.rawValue],
                        devices: Bool.random(using: &rng)
                            ? [] : ["d\(Int.random(in: 0..<3, using: &rng))"],
                        fences: Int.random(in: 0..<3, using: &rng) > 0 ? [] : ["f0"]))
            }
            let alerts = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                Alert(
                    type: types.randomElement(using: &rng)!,
                    device: "d\(Int.random(in: 0..<3, using: &rng))", time: 1000,
                    fence: Bool.random(using: &rng)
                        ? nil : "f\(Int.random(in: 0..<2, using: &rng))",
                    lat: 48, lon: 11)
            }
            let runs = CommitStage.outbox(for: alerts, hooks)
            expectEachOwedItsMatches(runs, alerts, hooks, "round \(round), ")
            for (r, s) in zip(runs, runs.dropFirst())
            where r.alerts.upperBound == s.alerts.lowerBound {
                #expect(r.webhooks != s.webhooks, "round \(round): runs not merged")
            }
        }
    }
}
