import FleetJSON
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// Successful answers: JSON bodies built from records' `Codable` form (the
/// contract `fleetctl … --json` shares), pages of lists with their `next`.
enum Replies {
    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:])
        -> Response
    {
        body(text, type: "application/json", status: status, headers: headers)
    }

    static func body(
        _ text: String, type: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        var h = headers
        h[.contentType] = type
        h[.cacheControl] = "no-store"
        return Response(
            status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func record(_ value: some Encodable) -> Response { json(RecordCoding.line(value)) }

    /// `{"items":[…],"next":URL-or-null}`: `next` is the path and query that
    /// fetch the following page, present when this page is full.
    static func page(_ lines: [String], next: String?) -> Response {
        json(
            "{\"items\":[" + lines.joined(separator: ",") + "],\"next\":"
                + (next.map(JSONValue.quote) ?? "null") + "}")
    }

    /// A request body that must be one JSON object: its members. Throws
    /// 400 for bad JSON, 422 (`invalid`, the phrase) for any other value.
    static func object(_ body: [UInt8], invalid: String) throws(APIError)
        -> [(key: String, value: JSONValue)]
    {
        let doc: JSONValue
        do {
            doc = try JSONReader.parseDocument(body)
        } catch {
            throw APIError(.badRequest, "bad JSON", "\(error)")
        }
        guard case .object(let members) = doc else {
            let p = "the body must be an object, found \(doc.kindName)"
            throw APIError(.unprocessableContent, invalid, p, problems: [p])
        }
        return members
    }

    /// `path?query` with `query` rebuilt from `params` (sorted, escaped).
    static func link(_ path: String, _ params: [String: String]) -> String {
        let q = params.sorted { $0.key < $1.key }.map { "\($0.key)=\(escape($0.value))" }
        return q.isEmpty ? path : path + "?" + q.joined(separator: "&")
    }

    static func escape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
