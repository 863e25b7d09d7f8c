import Foundation

/// Where a test run's files go: one folder per test process,
/// `fleetd-tests-PID` in the system's temporary folder, each test's own
/// folders and files inside it. A run leaves that one folder behind (its
/// databases and logs, for a look after a failure), not one per test;
/// the folders of runs whose process is gone are deleted when the next
/// run first asks for `root`.
public enum TestScratch {
    /// This process's folder, created (and the finished runs' swept) on
    /// first use.
    public static let root: URL = {
        let tmp = FileManager.default.temporaryDirectory
        let prefix = "fleetd-tests-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            // Signal 0 asks only whether the process exists.
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name))
            }
        }
        let dir = tmp.appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()
}
