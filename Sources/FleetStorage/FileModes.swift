#if canImport(Glibc)
    import Glibc
#endif

/// The file modes fleetd and fleetctl create files with, whatever the
/// caller's umask: the database, its WAL, the alert log and backups hold
/// password hashes, webhook secrets and every position, so they are
/// never readable by others (umask(2)).
public enum FileModes {
    /// Adds `027` to the process's umask (never loosens it: under
    /// systemd's `UMask=0077` files stay 0600): what the process creates
    /// is at most 0640, owner read-write, group read.
    public static func restrict() {
        let old = umask(0o077)
        umask(old | 0o027)
    }
}
