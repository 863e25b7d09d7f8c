import Foundation

/// Timing and memory helpers.
enum Measure {
    /// Seconds taken by `body`.
    static func seconds(_ body: () -> Void) -> Double {
        let t0 = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty
            ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Resident set size of this process now, bytes (from /proc/self/statm).
    static func rss() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
            return 0
        }
        let parts = s.split(separator: " ")
        guard parts.count > 1, let pages = Int(parts[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes this process has handed to write(2) and its kin so far
    /// (`wchar` of /proc/self/io: the page cache's input, whether or not
    /// it reached the disk yet); 0 where it cannot be read.
    static func bytesWritten() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else {
            return 0
        }
        for line in s.split(separator: "\n") where line.hasPrefix("wchar:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    static func mib(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
