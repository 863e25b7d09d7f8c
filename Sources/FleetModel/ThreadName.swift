#if canImport(Glibc)
    import Glibc
#endif

/// Names the calling thread, as `top -H`, `ps -L` and
/// `/proc/PID/task/TID/comm` show it: written to `/proc/thread-self/comm`
/// (proc(5); Linux 3.17+), 15 bytes at most, a longer name cut at a
/// character boundary.
///
/// Foundation's `Thread.current.name = …` is not used: on Linux it names
/// the thread only once the creating thread has stored the new thread's
/// handle, so a thread that runs its first lines before that (a loaded
/// machine) silently keeps its creator's name.
public enum ThreadName {
    /// Names the calling thread `name`; returns false if the system refused.
    @discardableResult
    public static func set(_ name: String) -> Bool {
        var cut = Substring(name)
        while cut.utf8.count > 15 { cut = cut.dropLast() }
        #if canImport(Glibc)
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            let bytes = Array(cut.utf8)
            return write(fd, bytes, bytes.count) == bytes.count
        #else
            return false
        #endif
    }
}
