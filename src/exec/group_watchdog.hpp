#pragma once

#include <sys/types.h>

namespace envbisect {

// Fork the group watchdog: a small process that holds one end of a socket whose other end only this
// process has, and that kills (SIGKILL) every process group registered with it when that end closes
// without the groups having been unregistered, i.e. when envbisect dies, even by SIGKILL. It ignores
// SIGINT, SIGTERM and SIGHUP (envbisect handles those) and exits with us. Call once, early, while the
// process has a single thread; a failure leaves no watchdog and says so in the log.
void start_group_watchdog();

// Tell the watchdog that process group `pgid` runs (a no-op without a watchdog). Safe from any thread.
void watchdog_register(pid_t pgid);

// Tell the watchdog that group `pgid` is ours to end: call before reaping its leader, so the group id
// cannot have been reused when the watchdog acts. Safe from any thread.
void watchdog_unregister(pid_t pgid);

}  // namespace envbisect
