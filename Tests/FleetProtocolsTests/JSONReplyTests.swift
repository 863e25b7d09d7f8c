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

    /// Every sequence number a sender may use comes back as it was sent:
    /// zero, negatives and both ends of the 64-bit range, as `String` prints them.
    @Test(arguments: [0, 9, 10, -1, -10, 1_234_567_890, Int64.max, Int64.min])
    func encodesEverySequenceNumber(_ seq: Int64) {
        let r = JSONReply(acked: [seq, 42], rejected: [(seq, .futureTime), (3, .speedCeiling)])
        #expect(
            String(decoding: r.encoded(), as: UTF8.self)
                == #"{"ack":[\#(seq),42],"rejected":[{"seq":\#(seq),"reason":"future_time"},"#
                + #"{"seq":3,"reason":"speed_ceiling"}]}"#)
        #expect(String(decoding: JSONReply().encoded(), as: UTF8.self) == #"{"ack":[]}"#)
    }
}
