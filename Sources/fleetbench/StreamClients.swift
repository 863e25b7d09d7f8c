import FleetSimCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The newest alert id a stream client has seen.
final class LatestAlert: Sendable {
    let id = Atomic<Int64>(0)
}

/// Many event-stream clients (`GET /api/v1/events?positions=off`, each
/// with its own filter) on one thread. Each alert delivered is timed from the first send of the
/// newest datagram of its device (`SendClock`) to its arrival here: an
/// upper bound of commit-to-client, since it also holds the queue, the
/// tracking and the commit.
final class StreamClients: @unchecked Sendable {
    struct Report {
        var connected = 0
        var refused = 0
        var ended = 0
        var deliveries = 0
        var distinctAlerts = 0
        var latenciesMs: [Float] = []
    }

    private let port: Int
    private let token: String
    private let paths: [String]
    private var streams: Int { paths.count }
    private let clock: SendClock
    private let deviceIndex: (Substring) -> Int?
    let latest: LatestAlert
    private let stopFlag = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex(Report())
    private let connected = Atomic<Int>(0)

    init(
        port: Int, token: String, paths: [String], clock: SendClock, latest: LatestAlert,
        deviceIndex: @escaping (Substring) -> Int?
    ) {
        self.port = port
        self.token = token
        self.paths = paths
        self.clock = clock
        self.latest = latest
        self.deviceIndex = deviceIndex
    }

    /// One stream's connection: the head, then the chunked body decoded
    /// into `sse`, events split on blank lines.
    private struct Stream {
        var fd: Int32
        var raw: [UInt8] = []
        var headDone = false
        var sse: [UInt8] = []
        var open = true
    }

    /// Connects every stream and reads them on a thread of its own until `stop`.
    func start() {
        let t = Thread { [self] in
            run()
            done.signal()
        }
        t.start()
    }

    /// Waits (up to `timeoutS`) until every stream has its 200 head; the count.
    func waitConnected(timeoutS: Double) -> Int {
        let deadline = Date().addingTimeInterval(timeoutS)
        while connected.load(ordering: .relaxed) < streams && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        return connected.load(ordering: .relaxed)
    }

    func stop() -> Report {
        stopFlag.store(true, ordering: .relaxed)
        done.wait()
        return result.withLock { $0 }
    }

    private func run() {
        var report = Report()
        var seen = Set<Int64>()
        var conns: [Stream] = paths.map { path in
            let fd = LoopbackHTTP.connect(port: port)
            _ = LoopbackHTTP.send(
                fd, LoopbackHTTP.get(path, token: token, accept: "text/event-stream"))
            return Stream(fd: fd)
        }
        var fds = [pollfd](repeating: pollfd(), count: conns.count)
        while !stopFlag.load(ordering: .relaxed) {
            for i in conns.indices {
                fds[i] = pollfd(
                    fd: conns[i].open ? conns[i].fd : -1, events: Int16(POLLIN), revents: 0)
            }
            guard poll(&fds, nfds_t(fds.count), 20) > 0 else { continue }
            let now = SendClock.now()
            for i in conns.indices where fds[i].revents != 0 {
                guard let n = LoopbackHTTP.read(conns[i].fd, into: &conns[i].raw) else { continue }
                if n <= 0 {
                    conns[i].open = false
                    report.ended += 1
                    continue
                }
                if !conns[i].headDone {
                    guard let end = LoopbackHTTP.headEnd(conns[i].raw) else { continue }
                    let (status, _) = LoopbackHTTP.parseHead(conns[i].raw[..<end])
                    conns[i].raw.removeFirst(end)
                    conns[i].headDone = true
                    if status != 200 {
                        report.refused += 1
                        conns[i].open = false
                        continue
                    }
                    report.connected += 1
                    connected.add(1, ordering: .relaxed)
                }
                var raw = conns[i].raw
                var sse = conns[i].sse
                conns[i].raw = []
                conns[i].sse = []
                Self.dechunk(&raw, into: &sse)
                let used = Self.scan(sse) { id, device in
                    report.deliveries += 1
                    if seen.insert(id).inserted { report.distinctAlerts += 1 }
                    if id > latest.id.load(ordering: .relaxed) {
                        latest.id.store(id, ordering: .relaxed)
                    }
                    if let d = device.flatMap(deviceIndex) {
                        let sent = clock.last(d)
                        if sent > 0 && now > sent {
                            report.latenciesMs.append(Float(Double(now - sent) / 1e6))
                        }
                    }
                }
                if used > 0 { sse.removeFirst(used) }
                (conns[i].raw, conns[i].sse) = (raw, sse)
            }
        }
        for c in conns where c.fd >= 0 { close(c.fd) }
        report.latenciesMs.sort()
        let final = report
        result.withLock { $0 = final }
    }

    /// Moves the complete chunks of a chunked body (RFC 9112 §7.1) from `raw` to `out`.
    static func dechunk(_ raw: inout [UInt8], into out: inout [UInt8]) {
        var i = 0
        while true {
            // The size line.
            var j = i
            while j + 1 < raw.count && !(raw[j] == 13 && raw[j + 1] == 10) { j += 1 }
            guard j + 1 < raw.count else { break }
            let sizeText =
                String(decoding: raw[i..<j], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                break
            }
            let dataStart = j + 2
            guard raw.count >= dataStart + size + 2 else { break }
            out.append(contentsOf: raw[dataStart..<(dataStart + size)])
            i = dataStart + size + 2
        }
        if i > 0 { raw.removeFirst(i) }
    }

    /// Calls `alert` with the id and device of each complete alert event in
    /// `sse` (events end with a blank line); returns the bytes consumed.
    static func scan(_ sse: [UInt8], alert: (Int64, Substring?) -> Void) -> Int {
        let marker = Array("event: alert".utf8)
        let idTag = Array("id: ".utf8)
        let deviceTag = Array(#""device":""#.utf8)
        var start = 0
        var k = 1
        while k < sse.count {
            guard sse[k] == 10 && sse[k - 1] == 10 else {
                k += 1
                continue
            }
            let event = sse[start..<k]
            if find(marker, in: event) != nil {
                var id: Int64 = 0
                if var j = find(idTag, in: event) {
                    j += idTag.count
                    while j < k, sse[j] >= 48, sse[j] <= 57 {
                        id = id * 10 + Int64(sse[j] - 48)
                        j += 1
                    }
                }
                var device: Substring?
                if var j = find(deviceTag, in: event) {
                    j += deviceTag.count
                    let from = j
                    while j < k, sse[j] != 34 { j += 1 }
                    device = Substring(String(decoding: sse[from..<j], as: UTF8.self))
                }
                alert(id, device)
            }
            start = k + 1
            k += 2
        }
        return start
    }

    /// Where `needle` starts in `hay` (an index of `hay`'s base), or nil.
    static func find(_ needle: [UInt8], in hay: ArraySlice<UInt8>) -> Int? {
        guard hay.count >= needle.count, let first = needle.first else { return nil }
        var i = hay.startIndex
        let last = hay.endIndex - needle.count
        while i <= last {
            if hay[i] == first {
                var m = 1
                while m < needle.count && hay[i + m] == needle[m] { m += 1 }
                if m == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
