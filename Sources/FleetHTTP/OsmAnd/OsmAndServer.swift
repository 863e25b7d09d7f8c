import FleetConfig
import FleetModel
import FleetProtocols
import Foundation
import HTTPTypes
import Hummingbird

/// The OsmAnd door (Traccar Client, OsmAnd): `GET` or `POST` on any path,
/// the position in the query, a form body or a JSON body
/// (`OsmAndDecoder`). 200 only once the fix is committed (the apps drop a
/// position from their buffer on any status below 400); 400 with the
/// reject reason for a bad request; 404 for an unknown device when unknown
/// devices are refused; 503 with `Retry-After` when the fix was not
/// stored in time (overload, storage failing, stopping).
enum OsmAndResponder {
    static func respond(
        _ request: Request, _ context: APIContext, backend: any APIBackend, maxBody: Int,
        trusted: [AddressRange] = []
    ) async -> Response {
        let now = WallClock.system.nowMs()
        guard request.method == .get || request.method == .post else {
            var h = HTTPFields()
            h[.allow] = "GET, POST"
            return text(.methodNotAllowed, "only GET and POST", h)
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        var body: [UInt8] = []
        if request.method == .post {
            do {
                var buffer = try await request.body.collect(upTo: maxBody)
                body = buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch {
                return text(.contentTooLarge, "body larger than \(maxBody) bytes")
            }
        }
        let decoding = OsmAndWireFormat().decode(
            query: request.uri.query ?? "", body: body, json: type.hasPrefix("application/json"),
            nowMs: now)
        switch await backend.ingest(
            decoding, proto: .osmand, receivedMs: now,
            peer: ClientAddress.resolve(
                peer: context.peer, headers: request.headers, trusted: trusted))
        {
        case .committed:
            return Response(status: .ok)
        case .refused(let reason, let detail):
            return text(
                reason == .unknownDevice ? .notFound : .badRequest,
                "\(reason.rawValue): \(detail)")
        case .busy:
            var h = HTTPFields()
            h[.retryAfter] = "5"
            return text(.serviceUnavailable, "overload: not taken, send it again", h)
        case .timedOut:
            var h = HTTPFields()
            h[.retryAfter] = "10"
            return text(
                .serviceUnavailable,
                "not yet stored (storage is slow or failing): send it again", h)
        }
    }

    static func text(_ status: HTTPResponse.Status, _ message: String, _ headers: HTTPFields = [:])
        -> Response
    {
        var h = headers
        h[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
