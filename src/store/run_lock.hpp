#pragma once

#include <optional>
#include <string>

#include <sys/types.h>

#include "util/fd.hpp"

namespace envbisect {

// An exclusive flock(2) on RUNDIR/lock held for as long as one `run` or `resume` uses the folder; the
// kernel releases it when the process dies, so a killed run never leaves the folder locked.
class RunLock {
public:
  // Lock `run_dir` (which must exist) for `command` ("run", "resume"), writing our pid into the lock
  // file. Throw Error (environment) naming the holder's pid when another process holds it, or when the
  // lock file cannot be created.
  RunLock(const std::string& run_dir, const std::string& command);
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

private:
  UniqueFd m_fd;  // closing it releases the flock
};

// Return the description ("pid 1234 (envbisect run)") of the live process holding `run_dir`'s lock, or
// nothing when the folder is free (or has no lock file). Leaves no file behind.
std::optional<std::string> run_dir_holder(const std::string& run_dir);

// Return the message for a run folder that `holder` is using.
std::string run_dir_busy_message(const std::string& run_dir, const std::string& holder);

}  // namespace envbisect
