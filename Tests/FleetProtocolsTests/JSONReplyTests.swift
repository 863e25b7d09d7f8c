import Testing

@testable import FleetProtocols

@Suite struct JSONReplyTests {
    @Test func encodesAndParses() {
        let r = JSONReply(acked: [1, 2, 3], rejected: [(7, .badTime)])
        #expect(
            String(decoding: r.encoded(), as: UTF8.self)
                == #"{"ack":[1,2,3],"rejected":[{"seq":7,"reason":"bad_time"}]}"#)
        #expect(JSONReply.parse(r.encoded()) == r)
        #expect(String(decoding: JSONReply(acked: [5]).encoded(), as: UTF8.self) == #"{"ack":[5]}"#)
        #expect(JSONReply.parse(Array("nope".utf8)) == nil)
    }
}
