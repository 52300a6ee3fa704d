#pragma once

#include <sys/types.h>

#include <string>

namespace envbisect {

// Fork the group watchdog: a small process that holds one end of a socket whose other end only this
// process has, and that kills (SIGKILL) every process group registered with it when that end closes
// without the groups having been unregistered, i.e. when envbisect dies, even by SIGKILL. It ignores
// SIGINT, SIGTERM and SIGHUP (envbisect handles those) and exits with us. Call once, early, while the
// process has a single thread; a failure leaves no watchdog and says so in the log.
void start_group_watchdog();

// Tell the watchdog that process group `pgid` runs, in the attempt cgroup at `cgroup` ("" when the
// attempt has none): if envbisect dies, the watchdog kills the group and the whole cgroup (whatever
// moved to another group or session) and removes the cgroup. A no-op without a watchdog. Safe from
// any thread.
void watchdog_register(pid_t pgid, const std::string& cgroup = "");

// Tell the watchdog that group `pgid` is ours to end: call before reaping its leader, so the group id
// cannot have been reused when the watchdog acts. Safe from any thread.
void watchdog_unregister(pid_t pgid);

}  // namespace envbisect
