import FleetModel

/// The OsmAnd protocol as a `WireFormat`: one position per HTTP request
/// (`OsmAndDecoder`), answered by the HTTP status, never by bytes of a
/// reply (`reply` is always nil). The HTTP transport decodes a request
/// with `decode(query:body:json:nowMs:)`; `decode(_:sender:nowMs:)` takes
/// the bytes of a query string or form body.
public final class OsmAndWireFormat: WireFormat {
    public let trackerProtocol = TrackerProtocol.osmand

    public init() {}

    /// One request: its URL query, its body, and whether the body is JSON
    /// (`Content-Type: application/json`): one fix, or a refusal with the
    /// decoder's reason.
    public func decode(query: String, body: [UInt8], json: Bool, nowMs: Int64) -> WireDecoding {
        let decoded: Result<Fix, OsmAndDecoder.Rejection>
        if json, !body.isEmpty {
            decoded = OsmAndDecoder.decode(json: body, receivedMs: nowMs)
        } else {
            var pairs = FormEncoding.pairs(query)
            if !body.isEmpty { pairs += FormEncoding.pairs(String(decoding: body, as: UTF8.self)) }
            decoded = OsmAndDecoder.decode(pairs: pairs, receivedMs: nowMs)
        }
        switch decoded {
        case .success(let fix): return WireDecoding(fixes: [fix])
        case .failure(let r): return .refused(r.reason, r.detail)
        }
    }

    public func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, sender: () -> WireSender, nowMs: Int64
    ) -> WireDecoding {
        decode(query: "", body: Array(bytes), json: false, nowMs: nowMs)
    }

    public func reply(to decoding: WireDecoding, refused: [(fix: Int, reason: RejectReason)])
        -> WireReply?
    { nil }

    public func locate(fix index: Int, in decoding: WireDecoding) -> String {
        "device \(decoding.fixes[index].device)"
    }

    public func locate(item index: Int) -> String { "request" }
}
