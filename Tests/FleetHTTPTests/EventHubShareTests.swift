import Testing

@testable import FleetHTTP

/// `http.max_streams` and `http.max_streams_per_user`: one viewer cannot
/// take every event stream, and a stream closed gives its place back.
@Suite struct EventHubShareTests {
    /// Streams held open (a stream dropped is a stream closed).
    typealias Held = [(subscriber: EventHub.Subscriber, events: AsyncStream<LiveChunk>)]

    @Test func oneOwnerHoldsAtMostItsShare() throws {
        let hub = EventHub(maxStreams: 10, maxPerOwner: 2, buffer: 100, keepaliveS: 15)
        var held: Held = []
        let first = try hub.subscribe(EventFilter(), owner: "user:eve").get()
        held.append(try hub.subscribe(EventFilter(), owner: "user:eve").get())
        #expect(throws: EventHub.Refusal.ownerFull) {
            try hub.subscribe(EventFilter(), owner: "user:eve").get()
        }
        // Others still get theirs.
        held.append(try hub.subscribe(EventFilter(), owner: "token:map").get())
        #expect(hub.streams == 3)
        // Closing one gives its place back.
        first.subscriber.continuation.finish()
        #expect(hub.streams == 2)
        held.append(try hub.subscribe(EventFilter(), owner: "user:eve").get())
        #expect(hub.streams == 3)
    }

    @Test func theTotalBoundsEveryoneTogether() throws {
        let hub = EventHub(maxStreams: 3, maxPerOwner: 2, buffer: 100, keepaliveS: 15)
        var held: Held = []
        for owner in ["user:a", "user:b", "user:c"] {
            held.append(try hub.subscribe(EventFilter(), owner: owner).get())
        }
        #expect(throws: EventHub.Refusal.full) {
            try hub.subscribe(EventFilter(), owner: "user:d").get()
        }
        #expect(held.count == 3)
    }

    @Test func aClosedHubRefusesAll() {
        let hub = EventHub(maxStreams: 3, maxPerOwner: 2, buffer: 100, keepaliveS: 15)
        hub.close()
        #expect(throws: EventHub.Refusal.full) {
            try hub.subscribe(EventFilter(), owner: "user:a").get()
        }
    }
}
