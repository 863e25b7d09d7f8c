import FleetMail
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a hostile or broken mail server can cost: a reply held back ends
/// at `timeout_s`; an endless line or reply is cut off at its bound. Each
/// against a real socket on loopback that answers as the test says.
@Suite struct SMTPClientLimitTests {
    /// A one-connection server on 127.0.0.1 that sends `greeting` and then
    /// holds the connection for `holdS`; its port.
    static func server(sending greeting: [UInt8], holdS: Double) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread {
            let c = accept(fd, nil, nil)
            _ = greeting.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            Thread.sleep(forTimeInterval: holdS)
            close(c)
            close(fd)
        }
        return port
    }

    func settings(_ port: Int, timeoutS: Double = 1) -> SMTPSettings {
        SMTPSettings(host: "127.0.0.1", port: port, from: "a@b.test", tls: .off, timeoutS: timeoutS)
    }

    @Test func aServerThatNeverAnswersIsGivenUpAtTheTimeout() async throws {
        // The server holds the connection far longer than the timeout: only
        // the client's timer can end the wait (how long it takes is for
        // `make bench`, not a test: the pool may be busy with other suites).
        let port = try Self.server(sending: [], holdS: 120)
        do {
            _ = try await SMTPClient.probe(settings(port))
            Issue.record("a silent server was waited for to the end")
        } catch {
            #expect(error.message.contains("no reply within 1.0 s (smtp.timeout_s)"), "\(error)")
            #expect(!error.permanent)
        }
    }

    @Test func anEndlessLineIsCutOff() async throws {
        let port = try Self.server(
            sending: Array(repeating: UInt8(ascii: "2"), count: 100_000), holdS: 120)
        do {
            _ = try await SMTPClient.probe(settings(port, timeoutS: 5))
            Issue.record("an endless line was taken")
        } catch {
            #expect(error.message.contains("longer than 4096 bytes"), "\(error)")
        }
    }

    @Test func anEndlessReplyIsCutOff() async throws {
        let lines = String(repeating: "220-more\r\n", count: 500)
        let port = try Self.server(sending: Array(lines.utf8), holdS: 120)
        do {
            _ = try await SMTPClient.probe(settings(port, timeoutS: 5))
            Issue.record("an endless reply was taken")
        } catch {
            #expect(error.message.contains("more than 100 lines"), "\(error)")
        }
    }

    @Test func somethingThatIsNotSMTPIsNamed() async throws {
        let port = try Self.server(sending: Array("HTTP/1.1 400 Bad Request\r\n".utf8), holdS: 120)
        do {
            _ = try await SMTPClient.probe(settings(port, timeoutS: 5))
            Issue.record("an HTTP answer was taken")
        } catch {
            #expect(error.message.contains("not an SMTP reply: \"HTTP/1.1 400"), "\(error)")
        }
    }
}
