import FleetStorage

/// The mail of a scheduled report: pure. The text names the report, its
/// period and sums it up; the report itself is a CSV attachment named
/// after the report and period (`daily-usage-2026-11-26.csv`).
public enum ReportMail {
    public static func message(
        rule: ReportRule, label: String, csv: String, summary: [String], from: String,
        messageId: String, dateMs: Int64, consoleURL: String
    ) -> MailMessage {
        let what = rule.kind == .usage ? "Usage" : "Stops"
        let subject = "[fleetd] \(what) report \(rule.name): \(label)"
        var text = "\(what) report \"\(rule.name)\" for \(label) (\(rule.schedule.timeZone)).\n\n"
        text += summary.map { $0 + "\n" }.joined()
        text += "\nThe whole report is attached as CSV.\n"
        if !consoleURL.isEmpty {
            text +=
                "The console: \(consoleURL.hasSuffix("/") ? consoleURL : consoleURL + "/")console/\n"
        }
        var html = "<!doctype html><html><body style=\"font-family:sans-serif\">"
        html += "<p>\(AlertMail.html(what)) report <b>\(AlertMail.html(rule.name))</b> for "
        html += "\(AlertMail.html(label)) (\(AlertMail.html(rule.schedule.timeZone))).</p><ul>"
        html += summary.map { "<li>\(AlertMail.html($0))</li>" }.joined()
        html += "</ul><p>The whole report is attached as CSV.</p></body></html>\n"
        return MailMessage(
            from: from, to: rule.to, subject: subject, messageId: messageId, dateMs: dateMs,
            text: text, html: html,
            attachments: [
                .init(
                    name: "\(rule.name)-\(label).csv", contentType: "text/csv; charset=utf-8",
                    data: Array(csv.utf8))
            ])
    }
}
