#ifndef FLEETD_CSYSTEMD_SHIM_H
#define FLEETD_CSYSTEMD_SHIM_H
// The parts of libsystemd fleetd uses: sd_notify(3), sd_watchdog_enabled(3),
// sd_listen_fds(3), sd_journal_sendv(3). Only non-variadic calls are
// exposed to Swift (sd_journal_send is variadic; sd_journal_sendv takes
// the same fields as an iovec array).
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif
