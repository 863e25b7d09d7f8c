import FleetStorage
import FleetWebhooks
import Foundation
import Testing

@Suite struct WebhookRulesTests {
    let secret = WebhookSecret.random().text

    func hook(_ url: String = "https://example.com/x") -> WebhookSubscription {
        WebhookSubscription(name: "dispatch", url: url, secret: secret)
    }

    @Test func aGoodOneHasNoProblem() {
        #expect(WebhookRules.problems(hook()).isEmpty)
        #expect(WebhookRules.problems(hook("http://10.0.0.1:8080/a?b=c")).isEmpty)
    }

    @Test(arguments: [
        ("ftp://example.com/", "url: must be an http:// or https:// URL, found ftp:"),
        ("https:///x", "url: has no host"),
        ("https://user:pw@example.com/", "url: must not hold a user name or password"),
        ("https://example.com/#frag", "url: must not have a fragment (#…)"),
        ("example.com", "url: \"example.com\" is not a URL"),
    ])
    func badURLsAreNamed(_ c: (String, String)) {
        #expect(WebhookRules.problems(hook(c.0)).map(\.description) == [c.1])
    }

    @Test func everyProblemIsListedWithItsKey() {
        var s = hook()
        s.name = "bad name"
        s.secret = "whsec_c2hvcnQ="
        s.types = ["geofence_exit", "teleport"]
        s.devices = [""]
        s.batchMax = 0
        s.timeoutS = 500
        s.maxAgeH = 0
        #expect(
            WebhookRules.problems(s).map(\.key) == [
                "name", "secret", "types", "devices", "batch_max", "timeout_s", "max_age_h",
            ])
        #expect(
            WebhookRules.problems(s)[1].message
                == "holds 5 bytes; at least 24 random bytes are needed")
    }

    @Test func theBodyIsTheAlertsAsTheAPIGivesThem() throws {
        let a = AlertRecord(
            id: 7, time: 1_700_000_000_000, device: "truck-1", type: "geofence_exit",
            fence: "depot", lat: 48, lon: 11, details: nil)
        let body = WebhookPayload.body(webhook: "dis\"patch", alerts: [a, a])
        let doc = try #require(
            try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(doc["webhook"] as? String == "dis\"patch")
        let alerts = try #require(doc["alerts"] as? [[String: Any]])
        let one = try #require(
            try JSONSerialization.jsonObject(with: Data(a.jsonLine.utf8)) as? [String: Any])
        #expect(alerts.count == 2 && NSDictionary(dictionary: alerts[0]).isEqual(to: one))
        let test = try #require(
            try JSONSerialization.jsonObject(with: Data(WebhookPayload.test(webhook: "d")))
                as? [String: Any])
        #expect(test["test"] as? Bool == true && (test["alerts"] as? [Any])?.isEmpty == true)
    }
}

@Suite struct WebhookVerdictTests {
    let batch = WebhookBatch(
        id: 1, webhook: "d", messageId: "msg_x", firstAlert: 1, lastAlert: 2, count: 2,
        oldestMs: 0, attempts: 2, refusals: 1, nextMs: 0)
    let now: Int64 = 1_000_000

    func verdict(_ o: WebhookSender.Outcome) -> WebhookAttempt {
        WebhookVerdict.attempt(o, batch: batch, nowMs: now, unit: 1)
    }

    @Test func twoHundredsAreDelivered() {
        #expect(verdict(.answered(status: 204, retryAfter: nil)) == .delivered(status: 204))
    }

    @Test func failuresBackOffByTheirCount() {
        // Third attempt failed: ceiling 4 s, unit 1 → 4 s.
        guard case .failed(let e, let at) = verdict(.answered(status: 500, retryAfter: nil)) else {
            Issue.record("not a failure")
            return
        }
        #expect(at == now + 4000 && e.hasSuffix("HTTP 500"))
        guard case .failed(let e2, _) = verdict(.failed(WebhookFailure("connection refused")))
        else {
            Issue.record("not a failure")
            return
        }
        #expect(e2.hasSuffix("connection refused"))
    }

    @Test func retryAfterIsHonouredOn429And503Only() {
        guard case .failed(_, let at) = verdict(.answered(status: 429, retryAfter: "30")) else {
            Issue.record("not a failure")
            return
        }
        #expect(at == now + 30_000)
        guard case .failed(_, let at2) = verdict(.answered(status: 503, retryAfter: "5000")) else {
            Issue.record("not a failure")
            return
        }
        #expect(at2 == now + 600_000)  // capped at 10 min
        guard case .refused(400, _, let at3) = verdict(.answered(status: 400, retryAfter: "30"))
        else {
            Issue.record("not a refusal")
            return
        }
        #expect(at3 == now + 4000)
    }

    @Test func goneDisables() {
        guard case .gone(let e) = verdict(.answered(status: 410, retryAfter: nil)) else {
            Issue.record("not gone")
            return
        }
        #expect(e.contains("410"))
    }
}
