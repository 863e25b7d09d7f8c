import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The webhook receiver of the end-to-end tests (`receiver.py`, Python) for
/// the benchmarks: answers 200 at once, counts alerts, logs nothing and
/// (for fleetd's rate, not the script's) verifies no signature.
final class BenchReceiver {
    let process = Process()
    let port: Int
    private let dir: URL

    init(python: String, script: String, secret: String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fleetbench-receiver-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let control = dir.appendingPathComponent("control.json").path
        try #"{"quiet": true, "verify": false}"#.write(
            toFile: control, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, secret, dir.appendingPathComponent("log").path, control, "0"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        let fd = out.fileHandleForReading.fileDescriptor
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !line.contains(10), poll(&p, 1, 10_000) > 0 {
            var b = [UInt8](repeating: 0, count: 64)
            let n = read(fd, &b, b.count)
            if n <= 0 { break }
            line += b[0..<n]
        }
        guard
            let port = Int(
                String(decoding: line, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw BenchFailure(
                "the webhook receiver did not start (python3 with standardwebhooks?)")
        }
        self.port = port
    }

    /// Alerts answered 200 so far.
    func alerts() -> Int {
        let fd = LoopbackHTTP.connect(port: port)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var data = [UInt8]()
        var b = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &b, b.count, 0)
            if n <= 0 { break }
            data += b[0..<n]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let r = text.range(of: "\"alerts\": ") else { return -1 }
        return Int(text[r.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    /// `[[webhooks]]` tables for `count` subscriptions of every alert to this receiver.
    func config(count: Int, secret: String, batchMax: Int = 100, since: Int? = nil) -> String {
        (0..<count).map { i in
            """
            [[webhooks]]
            name = "bench\(i)"
            url = "http://127.0.0.1:\(port)/bench\(i)"
            secret = "\(secret)"
            allow_private = true
            batch_max = \(batchMax)
            \(since.map { "since = \($0)" } ?? "")
            """
        }.joined(separator: "\n")
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dir)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
