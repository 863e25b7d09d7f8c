import FleetReports
import FleetStorage
import Foundation

/// The mail a rule sends about its alerts: pure, from values to a
/// `MailMessage`. One alert: its subject names the vehicle and what
/// happened; several (a digest): the subject counts them and the body
/// lists them in time order. Times are local to the rule's time zone;
/// vehicles and fences are named as people named them, with their ids.
public struct AlertMail: Sendable {
    /// Device id → name (as `fleetctl devices rename` set it).
    public var deviceNames: [String: String]
    /// Fence id → name (the fences file's `properties.name`).
    public var fenceNames: [String: String]
    /// The console's address for the link; "" : no link.
    public var consoleURL: String

    public init(deviceNames: [String: String], fenceNames: [String: String], consoleURL: String) {
        self.deviceNames = deviceNames
        self.fenceNames = fenceNames
        self.consoleURL = consoleURL
    }

    /// The mail of `rule` about `alerts` (at least one), sent from `from`.
    public func message(
        rule: MailRule, alerts: [AlertRecord], from: String, messageId: String, dateMs: Int64
    ) -> MailMessage {
        let zone = TimeZone(identifier: rule.timeZone) ?? TimeZone(identifier: "UTC")!
        let sorted = alerts.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        let subject: String
        if sorted.count == 1, let a = sorted.first {
            subject = "[fleetd] \(vehicle(a.device)): \(what(a))"
        } else {
            let vehicles = Set(sorted.map(\.device)).count
            subject =
                "[fleetd] \(sorted.count) alerts for \(vehicles) vehicle\(vehicles == 1 ? "" : "s") (\(rule.name))"
        }
        var text = ""
        var rows = ""
        for a in sorted {
            let when = Self.localTime(a.time, zone)
            let place = a.lat.flatMap { lat in a.lon.map { String(format: "%.5f, %.5f", lat, $0) } }
            text += "\(when)  \(named(a.device)): \(what(a))"
            text += place.map { "  at \($0)" } ?? ""
            text += "  [alert \(a.id)]\n"
            rows += "<tr><td>\(Self.html(when))</td><td>\(Self.html(vehicle(a.device)))"
            if vehicle(a.device) != a.device { rows += " <small>(\(Self.html(a.device)))</small>" }
            rows += "</td><td>\(Self.html(what(a)))</td>"
            rows += "<td>\(Self.html(place ?? ""))</td></tr>\n"
        }
        let link =
            consoleURL.isEmpty
            ? nil : consoleURL.hasSuffix("/") ? consoleURL + "console/" : consoleURL + "/console/"
        text += "\nRule \(rule.name); times in \(rule.timeZone).\n"
        if let link { text += "The console: \(link)\n" }
        var html = """
            <!doctype html><html><body style="font-family:sans-serif">
            <table cellpadding="4" style="border-collapse:collapse">
            <tr><th align="left">Time (\(Self.html(rule.timeZone)))</th><th align="left">Vehicle</th>\
            <th align="left">Alert</th><th align="left">Where</th></tr>
            \(rows)</table>
            <p style="color:#666">Rule \(Self.html(rule.name)).
            """
        if let link { html += " <a href=\"\(Self.html(link))\">Open the console</a>." }
        html += "</p></body></html>\n"
        return MailMessage(
            from: from, to: rule.to, subject: subject, messageId: messageId, dateMs: dateMs,
            text: text, html: html)
    }

    func vehicle(_ id: String) -> String {
        if let n = deviceNames[id], !n.isEmpty { return n }
        return id
    }

    /// The vehicle's name with its id, or its id alone when it has no other name.
    func named(_ id: String) -> String {
        let n = vehicle(id)
        return n == id ? id : "\(n) (\(id))"
    }

    func fence(_ id: String?) -> String {
        guard let id else { return "a fence" }
        if let n = fenceNames[id], n != id { return "\(n) (\(id))" }
        return id
    }

    /// What happened, in words.
    func what(_ a: AlertRecord) -> String {
        switch a.type {
        case "geofence_enter": return "entered \(fence(a.fence))"
        case "geofence_exit": return "left \(fence(a.fence))"
        case "overspeed_start": return "overspeed" + (a.fence.map { " in \(fence($0))" } ?? "")
        case "overspeed_end": return "back under the speed limit"
        case "trip_start": return "started a trip"
        case "trip_end": return "ended a trip"
        case "device_silent": return "went silent"
        case "device_back": return "reports again"
        case "ignition_on": return "ignition on"
        case "ignition_off": return "ignition off"
        case "idle_start": return "idling"
        case "idle_end": return "stopped idling"
        case "device_alarm":
            return "raised an alarm" + (a.detailText("alarm").map { ": \($0)" } ?? "")
        default: return a.type
        }
    }

    /// `2026-11-27 14:03:12 +01:00` (the zone's offset then: abbreviations
    /// are not portable).
    static func localTime(_ ms: Int64, _ zone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// Text safe in HTML (element text and double-quoted attributes).
    static func html(_ s: String) -> String { XML.escape(s) }
}
