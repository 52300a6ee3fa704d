#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exec/log_cap.hpp"
#include "exec/process_identity.hpp"

namespace envbisect {

// What to spawn: an argv (never a shell string), the child's complete environment, where output goes.
struct ProcessSpec {
  std::vector<std::string> argv;            // argv[0] is looked up on the PATH given in `env` if it has no '/'
  std::map<std::string, std::string> env;   // the child's whole environment; nothing is inherited
  std::string cwd;                          // working directory; empty means the caller's
  std::string stdout_path;                  // file created or truncated; empty means /dev/null
  std::string stderr_path;                  // file created or truncated; empty means /dev/null
  std::string stdin_path;                   // file read as stdin; empty means /dev/null
  std::chrono::milliseconds timeout{0};     // 0 means no limit
  // What the process must be able to reach, for runners that isolate or move it (containers, remote
  // hosts). A plain local runner ignores both lists.
  std::vector<std::string> read_paths;      // read-only: the environment, the recipe folder, checkouts
  std::vector<std::string> write_paths;     // writable: the attempt folder, this run's cache folders
  std::string container_base;               // the candidate's container base (rootfs folder or image) for
                                            // isolating runners; "" = the runner's own default
  std::uint64_t max_log_bytes = k_default_max_log_bytes;  // per output file; past it the middle is cut
  // Called (on the spawning thread) once a local process runs, with the identity of its process group
  // leader, before it is waited for: a run journals it so a later session can end what a crash left.
  std::function<void(const ProcessIdentity&)> on_spawn;
};

// How a spawned process ended.
struct ProcessResult {
  bool spawned = false;      // false when the program could not be started at all
  std::string spawn_error;   // why it could not be started
  int exit_code = -1;        // valid when it exited normally
  int signal = 0;            // the terminating signal, 0 when it exited normally
  bool timed_out = false;    // true when killed (with its process group) after the timeout
  bool interrupted = false;  // true when killed (with its process group) because we got SIGINT/SIGTERM
  std::uint64_t log_bytes_cut = 0;  // output bytes dropped from the logs by max_log_bytes
  double wall_seconds = 0.0;
};

// Spawns processes. Tests of code around it use a fake; only exec/ implements it for real.
class Runner {
public:
  virtual ~Runner() = default;
  // Run the process to completion (or timeout) and return how it ended; never throw for child failures.
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

// The real runner: spawns through Boost.Process v2 (exec/process_launch), own process group per child,
// stdin from /dev/null, group killed on timeout or interrupt, every descendant reaped. The child gets SIGKILL when the thread that spawned it dies
// (PR_SET_PDEATHSIG): run() waits on that thread until the child is gone, so only a dying envbisect
// sends it. Output goes through pipes into the log files, capped by max_log_bytes. Logs the exact argv
// before spawning.
class LocalRunner : public Runner {
public:
  // Run the process to completion (or timeout) and return how it ended. Throw Error (environment)
  // only when an output file cannot be created; a missing program gives spawned=false.
  ProcessResult run(const ProcessSpec& spec) override;
};

// Make this process a child subreaper (Linux) so orphaned grandchildren are ours to reap, and route
// SIGINT/SIGTERM to a flag that makes running children's groups be killed.
void install_process_guards();

// Return true once SIGINT or SIGTERM has been received.
bool interrupt_requested();

// Whether a child may see the caller's CUDA_VISIBLE_DEVICES.
enum class InheritCudaDevices { no, yes };

// Return the variables of the current process that a child may inherit (PATH, HOME, LANG, TMPDIR,
// USER, LOGNAME, TERM, and CUDA_VISIBLE_DEVICES only when asked); everything else must be explicit.
std::map<std::string, std::string> allowed_parent_env(InheritCudaDevices cuda = InheritCudaDevices::no);

// Return the full path of `program` found on the colon-separated `path_list`, or "" when none is
// executable. A program containing '/' is returned unchanged.
std::string find_program(const std::string& program, const std::string& path_list);


}  // namespace envbisect
