import FleetStorage
import Testing

/// `webhook-id`s: `msg_` and 26 characters of Crockford's base 32 (lower
/// case), every character drawn from the random bits, none repeated.
@Suite struct WebhookMessageIdTests {
    static let alphabet = Set("0123456789abcdefghjkmnpqrstvwxyz")

    @Test func everyIdHasTheFormAndEveryPlaceVaries() {
        let ids = (0..<4000).map { _ in WebhookBatch.newMessageId() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.hasPrefix("msg_") && id.count == 30, "\(id)")
            #expect(id.dropFirst(4).allSatisfy { Self.alphabet.contains($0) }, "\(id)")
        }
        // Each of the 26 places takes every one of the 32 digits (4000 draws:
        // a digit missing from a place by chance has odds below 1e-50).
        for place in 4..<30 {
            let seen = Set(ids.map { Array($0)[place] })
            #expect(seen.count == 32, "place \(place - 4) took only \(seen.sorted())")
        }
    }
}
