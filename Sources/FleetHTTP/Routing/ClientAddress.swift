import FleetConfig
import Foundation
import HTTPTypes

/// Who sent a request: the peer, or, when the peer is a trusted proxy
/// (`http.trusted_proxies`), the client its `X-Forwarded-For` names.
///
/// The header's entries are read from the right (each proxy appends the
/// address it was reached from): the first entry that is not itself a
/// trusted proxy is the client. Entries left of it are the client's own
/// word and are never believed. A malformed entry, or none, leaves the
/// peer. Without trusted proxies the header is ignored: any client can
/// write one. See RFC 7239 §5.2 and MDN's X-Forwarded-For notes.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client of a request from `peer` carrying `headers`.
    static func resolve(peer: String, headers: HTTPFields, trusted: [AddressRange]) -> String {
        guard !trusted.isEmpty, AddressRange.any(trusted, contain: peer) else { return peer }
        let entries = headers[values: forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for entry in entries.reversed() {
            guard AddressRange.bytes(entry) != nil else { return peer }
            if !AddressRange.any(trusted, contain: entry) { return entry }
        }
        return entries.first ?? peer
    }
}
