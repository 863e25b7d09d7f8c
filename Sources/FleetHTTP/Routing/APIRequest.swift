import FleetModel
import FleetProtocols
import FleetStorage
import FleetTracking
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// One request as a route's handler sees it: the path's parameters, the
/// query (each known parameter at most once), and who sent it.
struct APIRequest: Sendable {
    var request: Request
    let context: APIContext
    let path: [String: String]
    let query: [String: String]
    let identity: Identity?

    /// The caller, for handlers of routes that need a role (always set there).
    var caller: Identity { identity ?? Identity(kind: .user, name: "-", role: .viewer) }

    func header(_ name: HTTPField.Name) -> String? { request.headers[name] }

    /// An integer parameter within `range`; `default` when absent.
    func int(_ name: String, default d: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text = query[name] else { return d }
        guard let v = Int(text), range.contains(v) else {
            throw .badParameter(
                name,
                "\"\(text.prefix(40))\" is not an integer in \(range.lowerBound)…\(range.upperBound)"
            )
        }
        return v
    }

    /// A time parameter: RFC 3339 or Unix milliseconds; nil when absent.
    func time(_ name: String) throws(APIError) -> Int64? {
        guard let text = query[name] else { return nil }
        if let ms = Int64(text), ms >= 0 { return ms }
        guard let ms = RFC3339.parse(Array(text.utf8)) else {
            throw .badParameter(
                name, "\"\(text.prefix(40))\" is neither an RFC 3339 time nor Unix milliseconds")
        }
        return ms
    }

    /// A device id parameter (query or path), checked like a fix's.
    func device(_ text: String, name: String = "device") throws(APIError) -> String {
        guard JSONFixDecoder.isValidDevice(text) else {
            throw .badParameter(
                name,
                "\"\(text.prefix(40))\" is not a device id (1–64 characters of [A-Za-z0-9._:-])")
        }
        return text
    }

    /// An alert type parameter (`geofence_enter`, …); nil when absent.
    func alertType(_ name: String = "type") throws(APIError) -> String? {
        guard let text = query[name] else { return nil }
        guard AlertType(rawValue: text) != nil else {
            throw .badParameter(
                name,
                "\"\(text.prefix(40))\" is not an alert type (\(AlertType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        return text
    }

    /// The request body, at most `limit` bytes (413 beyond), within `timeoutS` (408 beyond).
    func body(limit: Int, timeoutS: Int) async throws -> [UInt8] {
        let body = request.body
        do {
            return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask {
                    var buffer = try await body.collect(upTo: limit)
                    return buffer.readBytes(length: buffer.readableBytes) ?? []
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeoutS))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let bytes = first else {
                    throw APIError(
                        .requestTimeout, "timeout",
                        "the request body did not arrive within \(timeoutS) s")
                }
                return bytes
            }
        } catch let e as APIError {
            throw e
        } catch is NIOTooManyBytesError {
            throw APIError(
                .contentTooLarge, "too large",
                "the request body exceeds \(limit) bytes (http.max_body_bytes)")
        } catch {
            throw APIError(.badRequest, "bad body", "the request body could not be read: \(error)")
        }
    }

    /// The body as JSON (`Content-Type: application/json`, 415 otherwise).
    func jsonBody(limit: Int, timeoutS: Int) async throws -> [UInt8] {
        let type = header(.contentType)?.lowercased() ?? ""
        guard type.hasPrefix("application/json") || type.hasPrefix("application/geo+json") else {
            throw APIError(
                .unsupportedMediaType, "unsupported media type",
                "send the body as application/json (got \(type.isEmpty ? "no Content-Type" : type))"
            )
        }
        return try await body(limit: limit, timeoutS: timeoutS)
    }
}
