import Foundation

/// One mail as sent: the headers of RFC 5322 and a MIME body (RFC 2045,
/// RFC 2046): `multipart/alternative` of plain text and HTML, inside a
/// `multipart/mixed` with the attachments when there are any. Every part
/// is base64 in lines of 76 characters, so that the text is 7-bit and no
/// line is longer than SMTP allows (RFC 5321 §4.5.3.1.6).
public struct MailMessage: Sendable, Equatable {
    public struct Attachment: Sendable, Equatable {
        /// File name shown to the reader (ASCII letters, digits, `._-`).
        public var name: String
        /// e.g. `text/csv; charset=utf-8`.
        public var contentType: String
        public var data: [UInt8]

        public init(name: String, contentType: String, data: [UInt8]) {
            self.name = name
            self.contentType = contentType
            self.data = data
        }
    }

    /// Addresses (`MailAddress`).
    public var from: String
    public var to: [String]
    /// Any Unicode; written as RFC 2047 encoded words when not plain ASCII.
    public var subject: String
    /// `<unique@host>`, fixed before the first attempt.
    public var messageId: String
    /// When it was written, Unix ms; the `Date` header (UTC).
    public var dateMs: Int64
    public var text: String
    public var html: String
    public var attachments: [Attachment]

    public init(
        from: String, to: [String], subject: String, messageId: String, dateMs: Int64,
        text: String, html: String, attachments: [Attachment] = []
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.messageId = messageId
        self.dateMs = dateMs
        self.text = text
        self.html = html
        self.attachments = attachments
    }

    /// The message as lines ending in CRLF (before SMTP's dot-stuffing).
    public func rendered() -> String {
        let seed = messageId.utf8.reduce(UInt64(1_469_598_103_934_665_603)) {
            ($0 ^ UInt64($1)) &* 1_099_511_628_211
        }
        let alt = "alt-" + String(seed, radix: 36)
        let mixed = "mixed-" + String(seed, radix: 36)
        var out = ""
        func line(_ s: String) { out += s + "\r\n" }
        line("From: \(from)")
        line("To: \(to.joined(separator: ", "))")
        line("Subject: \(Self.encodedWord(subject))")
        line("Date: \(Self.date(dateMs))")
        line("Message-ID: \(messageId)")
        line("MIME-Version: 1.0")
        line("Auto-Submitted: auto-generated")
        func alternative() {
            line("Content-Type: multipart/alternative; boundary=\"\(alt)\"")
            line("")
            line("--\(alt)")
            part("text/plain; charset=utf-8", Array(text.utf8))
            line("--\(alt)")
            part("text/html; charset=utf-8", Array(html.utf8))
            line("--\(alt)--")
        }
        func part(_ type: String, _ data: [UInt8], name: String? = nil) {
            line("Content-Type: \(type)")
            line("Content-Transfer-Encoding: base64")
            if let name { line("Content-Disposition: attachment; filename=\"\(name)\"") }
            line("")
            let b64 = Data(data).base64EncodedString()
            var i = b64.startIndex
            while i < b64.endIndex {
                let j = b64.index(i, offsetBy: 76, limitedBy: b64.endIndex) ?? b64.endIndex
                line(String(b64[i..<j]))
                i = j
            }
        }
        if attachments.isEmpty {
            alternative()
        } else {
            line("Content-Type: multipart/mixed; boundary=\"\(mixed)\"")
            line("")
            line("--\(mixed)")
            alternative()
            for a in attachments {
                line("--\(mixed)")
                part(a.contentType, a.data, name: a.name)
            }
            line("--\(mixed)--")
        }
        return out
    }

    /// `text` as is when it is printable ASCII, else as RFC 2047 "B"
    /// encoded words of UTF-8 (each at most 60 characters, split between
    /// characters), folded onto continuation lines.
    static func encodedWord(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for c in text {
            let bytes = Array(String(c).utf8).filter { $0 != 0x0D && $0 != 0x0A }
            if chunk.count + bytes.count > 36 {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// RFC 5322 §3.3 date-time in UTC: `Fri, 27 Nov 2026 23:12:10 +0000`.
    static func date(_ ms: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// A new `Message-ID`: 26 random base-32 characters at `domain`.
    public static func newMessageId(domain: String) -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var g = SystemRandomNumberGenerator()
        return "<" + String((0..<26).map { _ in alphabet[Int(g.next() % 32)] }) + "@\(domain)>"
    }
}
