#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace envbisect {

// What tells one process apart from a later one that got the same pid: its start time since boot, and
// the boot.
struct ProcessIdentity {
  pid_t pid = 0;
  pid_t group = 0;                    // its process group id
  pid_t session = 0;                  // its session id
  unsigned long long start_ticks = 0; // /proc/PID/stat starttime (clock ticks since boot)
  std::string boot_id;                // /proc/sys/kernel/random/boot_id
  std::string cgroup;                 // the attempt cgroup it was started in; "" = its process group only
};

// Return the identity of the live process `pid` (not a zombie), or nothing when there is none.
std::optional<ProcessIdentity> identify_process(pid_t pid);

// Return this boot's id ("" when the kernel does not say).
std::string current_boot_id();

// Kill (SIGKILL) what is left of the process group that `leader` led, when it still runs: the leader
// itself if its pid still names it (same boot, same start time), else the members of its group in its
// session that started after it. A pid reused by another program is left alone. Wait up to a second
// for them to go; return the pids killed.
std::vector<pid_t> end_stale_group(const ProcessIdentity& leader);

}  // namespace envbisect
