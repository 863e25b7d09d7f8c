import FleetJSON
import FleetModel
import FleetStorage
import Foundation
import Hummingbird

/// `/api/v1/devices/{id}/commands`: queue a command for a device
/// (`POST`, operator: `{"text": "getinfo"}` or `{"type": "output",
/// "index": 1, "on": true}`), answered 202 with the command; list them
/// (`GET`, viewer), newest first. Commands travel over the device's TCP
/// connection (`docs/protocols.md`, "Commands to devices").
enum CommandRoutes {
    /// The longest command text taken, characters.
    static let maxText = 256

    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/devices/{id}/commands", role: .viewer, parameters: ["limit"]) {
                r in
                let id = try r.device(r.path["id"]!, name: "id")
                let limit = try r.int("limit", default: 100, range: 1...1000)
                // A device the caller does not see has no commands, as one that does not exist.
                guard try await d.sees(r, id) else { return Replies.page([], next: nil) }
                let page = try await d.read {
                    try $0.commands(device: id, statuses: [], limit: limit)
                }
                return Replies.page(page.map(RecordCoding.line), next: nil)
            },
            Route(.post, "/api/v1/devices/{id}/commands", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id)
                let body = try await r.jsonBody(limit: 4096, timeoutS: d.settings.bodyTimeoutS)
                let command = try request(body)
                switch try await d.backend.queueCommand(
                    device: id, command: command, actor: r.caller.actor)
                {
                case .queued(let c):
                    return Replies.json(RecordCoding.line(c), status: .accepted)
                case .unknownDevice:
                    throw APIError.notFound("no device \(id)")
                case .refused(let why):
                    throw APIError(.conflict, "cannot take commands", why)
                }
            },
        ]
    }

    /// `{"text"}` or `{"type": "output", "index", "on"}`: 422 lists every problem.
    static func request(_ body: [UInt8]) throws -> CommandRequest {
        let members = try Replies.object(body, invalid: "invalid command")
        var problems: [String] = []
        var fields: [String: JSONValue] = [:]
        for (k, v) in members {
            guard ["text", "type", "index", "on"].contains(k) else {
                problems.append("\(k.prefix(40)): unknown field (known: text, type, index, on)")
                continue
            }
            fields[k] = v
        }
        var out: CommandRequest?
        switch (fields["text"], fields["type"]) {
        case (.some(.string(let t)), nil):
            if t.isEmpty || t.unicodeScalars.count > maxText {
                problems.append("text: 1 to \(maxText) characters")
            } else if !t.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
                problems.append("text: printable ASCII only (no control characters)")
            } else {
                out = .text(t)
            }
            if fields["index"] != nil || fields["on"] != nil {
                problems.append("index, on: only with \"type\": \"output\"")
            }
        case (nil, .some(.string("output"))):
            var index: Int?
            if case .number(let n)? = fields["index"], n == n.rounded(), (1...4).contains(n) {
                index = Int(n)
            } else {
                problems.append("index: an integer 1–4")
            }
            var on: Bool?
            if case .bool(let b)? = fields["on"] {
                on = b
            } else {
                problems.append("on: true or false")
            }
            if let index, let on { out = .output(index: index, on: on) }
        case (nil, .some(let t)):
            problems.append("type: \"output\" is the only typed command, found \(t.kindName)")
        case (.some, .some):
            problems.append("text and type: one or the other")
        case (.some(let t), nil):
            problems.append("text: must be a string, found \(t.kindName)")
        case (nil, nil):
            problems.append("text or type: one is required")
        }
        guard problems.isEmpty, let out else {
            throw APIError(
                .unprocessableContent, "invalid command", problems.joined(separator: "; "),
                problems: problems)
        }
        return out
    }
}
