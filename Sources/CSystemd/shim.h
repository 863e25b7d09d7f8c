#ifndef FLEETD_CSYSTEMD_SHIM_H
#define FLEETD_CSYSTEMD_SHIM_H
// The parts of libsystemd fleetd uses: sd_notify(3), sd_watchdog_enabled(3),
// sd_listen_fds(3). Only non-variadic calls are exposed to Swift.
#include <systemd/sd-daemon.h>
#endif
