import FleetModel
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Scrapes `GET /metrics` on loopback every `everyMs` on a thread of its
/// own, as a Prometheus server would (one connection per scrape, read to
/// the end), until stopped.
final class MetricsScraper: Sendable {
    private let state = Mutex((scrapes: 0, lastBytes: 0, failed: 0, stopping: false))
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, everyMs: Int) {
        let thread = Thread { [self] in
            ThreadName.set("metrics-scraper")
            while !state.withLock({ $0.stopping }) {
                let bytes = Self.scrape(port: port)
                state.withLock {
                    if let bytes {
                        $0.scrapes += 1
                        $0.lastBytes = bytes
                    } else {
                        $0.failed += 1
                    }
                }
                usleep(UInt32(everyMs) * 1000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops scraping (once; later calls return the same counts): scrapes
    /// made, the last one's size in bytes, and the failed ones.
    @discardableResult
    func stop() -> (Int, Int, Int) {
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { done.wait() }
        return state.withLock { ($0.scrapes, $0.lastBytes, $0.failed) }
    }

    /// One scrape: the body's size, or nil unless the answer was a 200.
    private static func scrape(port: Int) -> Int? {
        let fd = LoopbackHTTP.connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let request = Array(
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard LoopbackHTTP.send(fd, request) else { return nil }
        var buffer: [UInt8] = []
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 100)
            guard let n = LoopbackHTTP.read(fd, into: &buffer) else { continue }
            if n <= 0 { break }
        }
        guard let end = LoopbackHTTP.headEnd(buffer),
            LoopbackHTTP.parseHead(buffer[..<end]).status == 200
        else { return nil }
        return buffer.count - end
    }
}
