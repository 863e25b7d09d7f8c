import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An SMTP client (RFC 5321) with `STARTTLS` (RFC 3207), implicit TLS
/// (RFC 8314) and `AUTH PLAIN`/`LOGIN` (RFC 4954, RFC 4616): one
/// connection per call, every reply bounded by `timeoutS`. The password is
/// never part of an error or a description.
public enum SMTPClient {
    /// What the server did with a mail it took.
    public struct Delivery: Sendable, Equatable {
        /// The reply to the data (`250 …`).
        public var reply: SMTPReply
        /// Recipients refused for good, each with the server's reply.
        public var refused: [String]
    }

    /// Sends `message` to `message.to`. Throws `SMTPError` (permanent when
    /// the server refused the mail or every recipient for good).
    public static func send(_ message: MailMessage, with settings: SMTPSettings)
        async throws(SMTPError) -> Delivery
    {
        let c = try await Connection.open(settings)
        do throws(SMTPError) {
            try await c.greet()
            try await c.login()
            try await c.expect("MAIL FROM:<\(message.from)>", [250], permanentOn5xx: true)
            var accepted = 0
            var refused: [String] = []
            for to in message.to {
                let r = try await c.command("RCPT TO:<\(to)>")
                switch r.code {
                case 250, 251: accepted += 1
                case 500...599: refused.append("\(to): \(r)")
                default:
                    throw SMTPError("recipient \(to): \(r)")
                }
            }
            guard accepted > 0 else {
                throw SMTPError(
                    "every recipient was refused: \(refused.joined(separator: "; "))",
                    permanent: true)
            }
            try await c.expect("DATA", [354], permanentOn5xx: true)
            let reply = try await c.data(message.rendered())
            await c.quit()
            return Delivery(reply: reply, refused: refused)
        } catch {
            await c.close()
            throw error
        }
    }

    /// Connects, says `EHLO`, protects the connection and logs in as
    /// `settings` ask, then quits: what `fleetd --check-config` shows.
    /// Returns one line per step; throws `SMTPError` naming what failed.
    public static func probe(_ settings: SMTPSettings) async throws(SMTPError) -> [String] {
        let c = try await Connection.open(settings)
        do throws(SMTPError) {
            try await c.greet()
            try await c.login()
            await c.quit()
            return c.story
        } catch {
            await c.close()
            throw error
        }
    }

    /// One session's channel and the handler of its replies.
    final class Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<SMTPReplyHandler>
        let settings: SMTPSettings
        private let log = Mutex<[String]>([])
        private let extensions = Mutex<[String]>([])
        private let secure = Mutex(false)

        var story: [String] { log.withLock { $0 } }

        private init(
            channel: any Channel, handler: NIOLoopBound<SMTPReplyHandler>, settings: SMTPSettings
        ) {
            self.channel = channel
            self.handler = handler
            self.settings = settings
        }

        static func tlsContext(_ s: SMTPSettings) throws(SMTPError) -> NIOSSLContext {
            var config = TLSConfiguration.makeClientConfiguration()
            config.minimumTLSVersion = .tlsv12
            if !s.caFile.isEmpty {
                do {
                    config.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(s.caFile))
                } catch {
                    throw SMTPError("smtp.ca_file \(s.caFile): \(error)")
                }
            }
            do {
                return try NIOSSLContext(configuration: config)
            } catch {
                throw SMTPError("TLS: \(error)")
            }
        }

        /// The name the certificate must carry (nil for an IP address,
        /// which is then checked against the certificate's addresses).
        static func serverName(_ host: String) -> String? {
            (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        }

        static func open(_ s: SMTPSettings) async throws(SMTPError) -> Connection {
            let implicit: NIOSSLContext? = s.tls == .tls ? try tlsContext(s) : nil
            let channel: any Channel
            // The reply handler, bound to its loop as it is made: looked up
            // later it may be gone already (a server that talks at once and
            // breaks the rules has the pipeline closed by then).
            let made = Mutex<NIOLoopBound<SMTPReplyHandler>?>(nil)
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.milliseconds(Int64(s.timeoutS * 1000)))
                    .channelInitializer { ch in
                        ch.eventLoop.makeCompletedFuture {
                            if let implicit {
                                try ch.pipeline.syncOperations.addHandler(
                                    try NIOSSLClientHandler(
                                        context: implicit, serverHostname: serverName(s.host)))
                            }
                            let h = SMTPReplyHandler()
                            try ch.pipeline.syncOperations.addHandler(h)
                            made.withLock { $0 = NIOLoopBound(h, eventLoop: ch.eventLoop) }
                        }
                    }
                    .connect(host: s.host, port: s.port).get()
            } catch {
                throw SMTPError("cannot connect to \(s.endpoint): \(error)")
            }
            guard let handler = made.withLock({ $0 }) else {
                channel.close(promise: nil)
                throw SMTPError("\(s.endpoint): the connection was set up without its handler")
            }
            let c = Connection(channel: channel, handler: handler, settings: s)
            if implicit != nil { c.secure.withLock { $0 = true } }
            return c
        }

        func note(_ line: String) { log.withLock { $0.append(line) } }

        /// The next reply, within `timeoutS`.
        func reply() async throws(SMTPError) -> SMTPReply {
            let loop = channel.eventLoop
            let handler = self.handler
            let limit = settings.timeoutS
            let future = loop.flatSubmit { handler.value.next(on: loop) }
            let timer = loop.scheduleTask(in: .milliseconds(Int64(limit * 1000))) {
                handler.value.fail(SMTPError("no reply within \(limit) s (smtp.timeout_s)"), nil)
                self.channel.close(promise: nil)
            }
            defer { timer.cancel() }
            do {
                return try await future.get()
            } catch let e as SMTPError {
                throw e
            } catch {
                throw SMTPError("\(error)")
            }
        }

        func write(_ text: String) async throws(SMTPError) {
            do {
                try await channel.writeAndFlush(ByteBuffer(string: text)).get()
            } catch {
                throw SMTPError("cannot write to \(settings.endpoint): \(error)")
            }
        }

        /// Sends one command line and reads its reply.
        func command(_ line: String) async throws(SMTPError) -> SMTPReply {
            try await write(line + "\r\n")
            return try await reply()
        }

        /// `command`, failing unless the reply's code is in `codes`
        /// (permanently on a 5xx when `permanentOn5xx`).
        @discardableResult
        func expect(
            _ line: String, _ codes: [Int], permanentOn5xx: Bool = false, shown: String? = nil
        )
            async throws(SMTPError) -> SMTPReply
        {
            let r = try await command(line)
            guard codes.contains(r.code) else {
                throw SMTPError(
                    "\(shown ?? line): \(r)", permanent: permanentOn5xx && r.code >= 500)
            }
            return r
        }

        /// The greeting, `EHLO`, and `STARTTLS` with a second `EHLO` when asked.
        func greet() async throws(SMTPError) {
            let hello = try await reply()
            guard hello.code == 220 else {
                throw SMTPError("\(settings.endpoint) greeted with \(hello)")
            }
            note(
                "connected to \(settings.endpoint)\(secure.withLock { $0 } ? " over TLS" : ""): \(hello)"
            )
            try await ehlo()
            if settings.tls == .starttls {
                guard extensions.withLock({ $0.contains { $0.uppercased() == "STARTTLS" } })
                else {
                    throw SMTPError(
                        "\(settings.endpoint) does not offer STARTTLS (smtp.tls = \"starttls\"; use \"tls\" for port 465, or \"off\" for a relay on this machine)"
                    )
                }
                try await expect("STARTTLS", [220])
                let context = try Self.tlsContext(settings)
                let name = Self.serverName(settings.host)
                let loop = channel.eventLoop
                let channel = self.channel
                do {
                    try await loop.submit {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: context, serverHostname: name),
                            position: .first)
                    }.get()
                } catch {
                    throw SMTPError("STARTTLS: \(error)")
                }
                secure.withLock { $0 = true }
                try await ehlo()
                note("STARTTLS: the connection is encrypted and the certificate checked")
            }
        }

        private func ehlo() async throws(SMTPError) {
            let r = try await expect("EHLO \(settings.heloName)", [250])
            let offered = Array(r.lines.dropFirst())
            extensions.withLock { $0 = offered }
            note("offers: \(offered.isEmpty ? "nothing" : offered.joined(separator: ", "))")
        }

        /// `AUTH` when a user name is set: `PLAIN`, else `LOGIN`; never
        /// over a plain connection to a host that is not loopback.
        func login() async throws(SMTPError) {
            guard !settings.username.isEmpty else { return }
            let encrypted = secure.withLock { $0 }
            if !encrypted && !Self.isLoopback(settings.host) {
                throw SMTPError(
                    "not sending the password to \(settings.endpoint) without TLS (smtp.tls = \"off\" logs in only to a loopback address)"
                )
            }
            let auth = extensions.withLock { ext in
                ext.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased()
                    .split(separator: " ").map(String.init) ?? []
            }
            let user = settings.username
            let pass = settings.password
            if auth.contains("PLAIN") {
                let token = Data(([0] + Array(user.utf8) + [0] + Array(pass.utf8)))
                    .base64EncodedString()
                try await expect("AUTH PLAIN \(token)", [235], shown: "AUTH PLAIN (as \(user))")
            } else if auth.contains("LOGIN") {
                try await expect("AUTH LOGIN", [334])
                try await expect(
                    Data(user.utf8).base64EncodedString(), [334], shown: "AUTH LOGIN user \(user)")
                try await expect(
                    Data(pass.utf8).base64EncodedString(), [235], shown: "AUTH LOGIN (as \(user))")
            } else {
                throw SMTPError(
                    "\(settings.endpoint) offers no login fleetd speaks (AUTH PLAIN or LOGIN)")
            }
            note("logged in as \(user)")
        }

        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host.hasPrefix("127.") || host == "::1"
        }

        /// The message with SMTP's dot-stuffing (RFC 5321 §4.5.2) and the
        /// final `.`; the reply to it.
        func data(_ text: String) async throws(SMTPError) -> SMTPReply {
            var out = ""
            out.reserveCapacity(text.utf8.count + 64)
            for line in text.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast() {
                if line.hasPrefix(".") { out += "." }
                out += line + "\r\n"
            }
            out += ".\r\n"
            try await write(out)
            let r = try await reply()
            guard r.code == 250 else {
                throw SMTPError("the data: \(r)", permanent: r.code >= 500)
            }
            return r
        }

        /// `QUIT`, its reply awaited briefly, then closes.
        func quit() async {
            _ = try? await write("QUIT\r\n")
            await close()
        }

        func close() async {
            try? await channel.close().get()
        }
    }
}
