#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "util/fd.hpp"

namespace envbisect {

// How this machine lets envbisect contain what an attempt starts.
struct Containment {
  std::string root;    // the writable cgroup v2 folder attempts' cgroups are made in; "" = none
  std::string reason;  // why there is none (no cgroup2 mount, not writable, ENVBISECT_CGROUP=off)
};

// Return the containment this process can use, found once: this process's own cgroup v2 folder
// (from /proc/self/mountinfo and /proc/self/cgroup) when it and its cgroup.procs are writable (root,
// a delegated subtree, a systemd scope with Delegate=yes) and a child cgroup can be made in it.
// Empty attempt cgroups left there by envbisect processes that no longer run are removed then.
// ENVBISECT_CGROUP=off turns it off.
const Containment& attempt_containment();

// Return a sentence for the journal: "cgroup v2 per attempt under ROOT" or "process group per attempt
// (no cgroup: REASON)".
std::string describe_attempt_containment();

// One attempt's own cgroup v2: every process started in it stays in it, whatever process group or
// session it moves to, so ending the cgroup ends all of them.
class AttemptCgroup {
public:
  // Make a fresh cgroup under attempt_containment().root; nullptr when there is no root or the
  // folder cannot be made (the caller falls back to the process group).
  static std::unique_ptr<AttemptCgroup> create();
  // End what is left in it and remove it.
  ~AttemptCgroup();
  AttemptCgroup(const AttemptCgroup&) = delete;
  AttemptCgroup& operator=(const AttemptCgroup&) = delete;

  // Return a descriptor of its cgroup.procs open for writing: the child writes "0" to it before
  // execve, which moves it (and everything it will start) into the cgroup.
  int procs_fd() const { return m_procs_fd.get(); }
  // Return the cgroup's folder.
  const std::string& path() const { return m_path; }

  // SIGKILL every process in the cgroup (cgroup.kill, else each pid of cgroup.procs until none is
  // left) and wait up to a second for it to empty; return how many pids were listed when it began.
  std::size_t kill_all();

private:
  explicit AttemptCgroup(std::string path, UniqueFd procs_fd)
      : m_path(std::move(path)), m_procs_fd(std::move(procs_fd)) {}
  std::string m_path;
  UniqueFd m_procs_fd;
};

// SIGKILL every process in the attempt cgroup at `path` (one AttemptCgroup::create made), wait up to a
// second for it to empty and remove it; return how many pids it listed. For the group watchdog, which
// ends the attempt cgroups of an envbisect that died, whatever group or session their processes moved to.
std::size_t end_attempt_cgroup(const std::string& path);

// End the attempt cgroup at `path` left by a killed session (every process in it, then the folder),
// when it is an envbisect attempt cgroup under this machine's containment root. Return how many
// processes were in it.
std::size_t end_stale_cgroup(const std::string& path);

}  // namespace envbisect
