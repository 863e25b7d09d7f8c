import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_*` metrics of Prometheus's client libraries
/// (https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics),
/// read from `/proc/self` (proc(5)) at each scrape.
struct ProcessMetrics {
    var cpuSeconds = 0.0
    var residentBytes = 0.0
    var virtualBytes = 0.0
    var openFds = 0.0
    var maxFds = 0.0
    var startS = 0.0

    /// Reads them now; a field that cannot be read stays 0.
    static func read(startS: Double) -> ProcessMetrics {
        var p = ProcessMetrics(startS: startS)
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            // Fields after "(comm)": state is field 3, so index i here is field i + 3.
            let f = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if f.count > 21, ticks > 0 {
                p.cpuSeconds = ((Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)) / ticks
                p.virtualBytes = Double(f[20]) ?? 0
                p.residentBytes = (Double(f[21]) ?? 0) * Double(sysconf(Int32(_SC_PAGESIZE)))
            }
        }
        p.openFds = Double(
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 0)
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            p.maxFds = Double(limit.rlim_cur)
        }
        return p
    }

    func set(in e: MetricsExporter) {
        e.counterSet(
            "process_cpu_seconds_total", cpuSeconds,
            "Total user and system CPU time spent in seconds.")
        e.gauge(
            "process_resident_memory_bytes", [], residentBytes, "Resident memory size in bytes.")
        e.gauge("process_virtual_memory_bytes", [], virtualBytes, "Virtual memory size in bytes.")
        e.gauge("process_open_fds", [], openFds, "Number of open file descriptors.")
        e.gauge("process_max_fds", [], maxFds, "Maximum number of open file descriptors.")
        e.gauge(
            "process_start_time_seconds", [], startS,
            "Start time of the process since unix epoch in seconds.")
    }
}
